"""Contains all the data models used in inputs/outputs"""

from .delete_v1_alerts_id_response_200 import DeleteV1AlertsIdResponse200
from .delete_v1_api_keys_id_response_200 import DeleteV1ApiKeysIdResponse200
from .delete_v1_api_keys_id_response_200_scopes_item import (
    DeleteV1ApiKeysIdResponse200ScopesItem,
)
from .delete_v1_api_keys_id_response_200_spend_limit_type_0 import (
    DeleteV1ApiKeysIdResponse200SpendLimitType0,
)
from .delete_v1_api_keys_id_response_200_spend_limit_type_0_period import (
    DeleteV1ApiKeysIdResponse200SpendLimitType0Period,
)
from .delete_v1_schedules_id_response_200 import DeleteV1SchedulesIdResponse200
from .delete_v1_settings_providers_provider_provider import (
    DeleteV1SettingsProvidersProviderProvider,
)
from .delete_v1_settings_providers_provider_response_200 import (
    DeleteV1SettingsProvidersProviderResponse200,
)
from .delete_v1_settings_providers_provider_response_200_id import (
    DeleteV1SettingsProvidersProviderResponse200Id,
)
from .delete_v1_ssh_keys_id_response_200 import DeleteV1SshKeysIdResponse200
from .delete_v1_webhooks_id_response_200 import DeleteV1WebhooksIdResponse200
from .error_body import ErrorBody
from .error_body_error import ErrorBodyError
from .error_body_error_details_item import ErrorBodyErrorDetailsItem
from .get_v1_alerts_response_200 import GetV1AlertsResponse200
from .get_v1_alerts_response_200_data_item import GetV1AlertsResponse200DataItem
from .get_v1_alerts_response_200_data_item_action import (
    GetV1AlertsResponse200DataItemAction,
)
from .get_v1_alerts_response_200_data_item_status import (
    GetV1AlertsResponse200DataItemStatus,
)
from .get_v1_alerts_response_200_data_item_type import (
    GetV1AlertsResponse200DataItemType,
)
from .get_v1_alerts_status import GetV1AlertsStatus
from .get_v1_api_keys_current_response_200 import GetV1ApiKeysCurrentResponse200
from .get_v1_api_keys_current_response_200_scopes_item import (
    GetV1ApiKeysCurrentResponse200ScopesItem,
)
from .get_v1_api_keys_current_response_200_spend_limit_type_0 import (
    GetV1ApiKeysCurrentResponse200SpendLimitType0,
)
from .get_v1_api_keys_current_response_200_spend_limit_type_0_period import (
    GetV1ApiKeysCurrentResponse200SpendLimitType0Period,
)
from .get_v1_api_keys_response_200 import GetV1ApiKeysResponse200
from .get_v1_api_keys_response_200_data_item import GetV1ApiKeysResponse200DataItem
from .get_v1_api_keys_response_200_data_item_scopes_item import (
    GetV1ApiKeysResponse200DataItemScopesItem,
)
from .get_v1_api_keys_response_200_data_item_spend_limit_type_0 import (
    GetV1ApiKeysResponse200DataItemSpendLimitType0,
)
from .get_v1_api_keys_response_200_data_item_spend_limit_type_0_period import (
    GetV1ApiKeysResponse200DataItemSpendLimitType0Period,
)
from .get_v1_billing_balance_response_200 import GetV1BillingBalanceResponse200
from .get_v1_billing_balance_response_200_currency import (
    GetV1BillingBalanceResponse200Currency,
)
from .get_v1_billing_summary_response_200 import GetV1BillingSummaryResponse200
from .get_v1_billing_summary_response_200_currency import (
    GetV1BillingSummaryResponse200Currency,
)
from .get_v1_billing_transactions_response_200 import (
    GetV1BillingTransactionsResponse200,
)
from .get_v1_billing_transactions_response_200_data_item import (
    GetV1BillingTransactionsResponse200DataItem,
)
from .get_v1_billing_transactions_response_200_data_item_type import (
    GetV1BillingTransactionsResponse200DataItemType,
)
from .get_v1_billing_transactions_type import GetV1BillingTransactionsType
from .get_v1_compute_provider_instance_id_logs_follow import (
    GetV1ComputeProviderInstanceIdLogsFollow,
)
from .get_v1_compute_provider_instance_id_response_200 import (
    GetV1ComputeProviderInstanceIdResponse200,
)
from .get_v1_compute_provider_instance_id_response_200_charges import (
    GetV1ComputeProviderInstanceIdResponse200Charges,
)
from .get_v1_compute_provider_instance_id_response_200_charges_latest_item import (
    GetV1ComputeProviderInstanceIdResponse200ChargesLatestItem,
)
from .get_v1_compute_provider_instance_id_response_200_charges_latest_item_type import (
    GetV1ComputeProviderInstanceIdResponse200ChargesLatestItemType,
)
from .get_v1_compute_provider_instance_id_response_200_cost import (
    GetV1ComputeProviderInstanceIdResponse200Cost,
)
from .get_v1_compute_provider_instance_id_response_200_end_kind import (
    GetV1ComputeProviderInstanceIdResponse200EndKind,
)
from .get_v1_compute_provider_instance_id_response_200_idle_stop import (
    GetV1ComputeProviderInstanceIdResponse200IdleStop,
)
from .get_v1_compute_provider_instance_id_response_200_provider import (
    GetV1ComputeProviderInstanceIdResponse200Provider,
)
from .get_v1_compute_provider_instance_id_response_200_provider_view import (
    GetV1ComputeProviderInstanceIdResponse200ProviderView,
)
from .get_v1_compute_provider_instance_id_response_200_ssh_type_0 import (
    GetV1ComputeProviderInstanceIdResponse200SshType0,
)
from .get_v1_compute_provider_instance_id_response_200_status import (
    GetV1ComputeProviderInstanceIdResponse200Status,
)
from .get_v1_compute_provider_instance_id_response_200_timeline_item import (
    GetV1ComputeProviderInstanceIdResponse200TimelineItem,
)
from .get_v1_compute_provider_instance_id_response_200_timeline_item_event import (
    GetV1ComputeProviderInstanceIdResponse200TimelineItemEvent,
)
from .get_v1_compute_refresh import GetV1ComputeRefresh
from .get_v1_compute_response_200 import GetV1ComputeResponse200
from .get_v1_compute_response_200_data_item import GetV1ComputeResponse200DataItem
from .get_v1_compute_response_200_data_item_end_kind import (
    GetV1ComputeResponse200DataItemEndKind,
)
from .get_v1_compute_response_200_data_item_idle_stop import (
    GetV1ComputeResponse200DataItemIdleStop,
)
from .get_v1_compute_response_200_data_item_provider import (
    GetV1ComputeResponse200DataItemProvider,
)
from .get_v1_compute_response_200_data_item_ssh_type_0 import (
    GetV1ComputeResponse200DataItemSshType0,
)
from .get_v1_compute_response_200_data_item_status import (
    GetV1ComputeResponse200DataItemStatus,
)
from .get_v1_compute_response_200_errors_item import GetV1ComputeResponse200ErrorsItem
from .get_v1_compute_response_200_errors_item_provider import (
    GetV1ComputeResponse200ErrorsItemProvider,
)
from .get_v1_compute_response_200_providers_item import (
    GetV1ComputeResponse200ProvidersItem,
)
from .get_v1_compute_response_200_providers_item_provider import (
    GetV1ComputeResponse200ProvidersItemProvider,
)
from .get_v1_compute_response_200_providers_item_status import (
    GetV1ComputeResponse200ProvidersItemStatus,
)
from .get_v1_compute_status import GetV1ComputeStatus
from .get_v1_events_response_200 import GetV1EventsResponse200
from .get_v1_events_response_200_data_item import GetV1EventsResponse200DataItem
from .get_v1_events_response_200_data_item_data import (
    GetV1EventsResponse200DataItemData,
)
from .get_v1_events_type import GetV1EventsType
from .get_v1_gpus_response_200 import GetV1GpusResponse200
from .get_v1_gpus_response_200_data_item import GetV1GpusResponse200DataItem
from .get_v1_gpus_response_200_families import GetV1GpusResponse200Families
from .get_v1_jobs_id_logs_follow import GetV1JobsIdLogsFollow
from .get_v1_jobs_id_response_200 import GetV1JobsIdResponse200
from .get_v1_jobs_id_response_200_attempts_item import (
    GetV1JobsIdResponse200AttemptsItem,
)
from .get_v1_jobs_id_response_200_attempts_item_provider import (
    GetV1JobsIdResponse200AttemptsItemProvider,
)
from .get_v1_jobs_id_response_200_providers_item import (
    GetV1JobsIdResponse200ProvidersItem,
)
from .get_v1_jobs_id_response_200_status import GetV1JobsIdResponse200Status
from .get_v1_jobs_response_200 import GetV1JobsResponse200
from .get_v1_jobs_response_200_data_item import GetV1JobsResponse200DataItem
from .get_v1_jobs_response_200_data_item_attempts_item import (
    GetV1JobsResponse200DataItemAttemptsItem,
)
from .get_v1_jobs_response_200_data_item_attempts_item_provider import (
    GetV1JobsResponse200DataItemAttemptsItemProvider,
)
from .get_v1_jobs_response_200_data_item_providers_item import (
    GetV1JobsResponse200DataItemProvidersItem,
)
from .get_v1_jobs_response_200_data_item_status import (
    GetV1JobsResponse200DataItemStatus,
)
from .get_v1_jobs_status import GetV1JobsStatus
from .get_v1_limits_response_200 import GetV1LimitsResponse200
from .get_v1_limits_response_200_data_item import GetV1LimitsResponse200DataItem
from .get_v1_limits_response_200_data_item_name import (
    GetV1LimitsResponse200DataItemName,
)
from .get_v1_pricing_compare_response_200 import GetV1PricingCompareResponse200
from .get_v1_pricing_compare_response_200_cheapest_type_0 import (
    GetV1PricingCompareResponse200CheapestType0,
)
from .get_v1_pricing_compare_response_200_cheapest_type_0_provider import (
    GetV1PricingCompareResponse200CheapestType0Provider,
)
from .get_v1_pricing_compare_response_200_offers_item import (
    GetV1PricingCompareResponse200OffersItem,
)
from .get_v1_pricing_compare_response_200_offers_item_provider import (
    GetV1PricingCompareResponse200OffersItemProvider,
)
from .get_v1_pricing_history_period import GetV1PricingHistoryPeriod
from .get_v1_pricing_history_response_200 import GetV1PricingHistoryResponse200
from .get_v1_pricing_history_response_200_data_item import (
    GetV1PricingHistoryResponse200DataItem,
)
from .get_v1_pricing_history_response_200_data_item_provider import (
    GetV1PricingHistoryResponse200DataItemProvider,
)
from .get_v1_pricing_history_response_200_offer_kind import (
    GetV1PricingHistoryResponse200OfferKind,
)
from .get_v1_pricing_history_response_200_period import (
    GetV1PricingHistoryResponse200Period,
)
from .get_v1_pricing_history_spot import GetV1PricingHistorySpot
from .get_v1_pricing_response_200 import GetV1PricingResponse200
from .get_v1_pricing_response_200_gpu_types_item import (
    GetV1PricingResponse200GpuTypesItem,
)
from .get_v1_pricing_response_200_gpu_types_item_offers_item import (
    GetV1PricingResponse200GpuTypesItemOffersItem,
)
from .get_v1_pricing_response_200_gpu_types_item_offers_item_provider import (
    GetV1PricingResponse200GpuTypesItemOffersItemProvider,
)
from .get_v1_recommendations_response_200 import GetV1RecommendationsResponse200
from .get_v1_recommendations_response_200_recommendations_item import (
    GetV1RecommendationsResponse200RecommendationsItem,
)
from .get_v1_recommendations_response_200_recommendations_item_alternative import (
    GetV1RecommendationsResponse200RecommendationsItemAlternative,
)
from .get_v1_recommendations_response_200_recommendations_item_alternative_provider import (
    GetV1RecommendationsResponse200RecommendationsItemAlternativeProvider,
)
from .get_v1_recommendations_response_200_recommendations_item_provider import (
    GetV1RecommendationsResponse200RecommendationsItemProvider,
)
from .get_v1_recommendations_summary_response_200 import (
    GetV1RecommendationsSummaryResponse200,
)
from .get_v1_schedules_id_response_200 import GetV1SchedulesIdResponse200
from .get_v1_schedules_id_response_200_idle_stop import (
    GetV1SchedulesIdResponse200IdleStop,
)
from .get_v1_schedules_id_response_200_status import GetV1SchedulesIdResponse200Status
from .get_v1_schedules_id_runs_response_200 import GetV1SchedulesIdRunsResponse200
from .get_v1_schedules_id_runs_response_200_data_item import (
    GetV1SchedulesIdRunsResponse200DataItem,
)
from .get_v1_schedules_id_runs_response_200_data_item_provider import (
    GetV1SchedulesIdRunsResponse200DataItemProvider,
)
from .get_v1_schedules_id_runs_response_200_data_item_status import (
    GetV1SchedulesIdRunsResponse200DataItemStatus,
)
from .get_v1_schedules_response_200 import GetV1SchedulesResponse200
from .get_v1_schedules_response_200_data_item import GetV1SchedulesResponse200DataItem
from .get_v1_schedules_response_200_data_item_idle_stop import (
    GetV1SchedulesResponse200DataItemIdleStop,
)
from .get_v1_schedules_response_200_data_item_status import (
    GetV1SchedulesResponse200DataItemStatus,
)
from .get_v1_settings_providers_response_200 import GetV1SettingsProvidersResponse200
from .get_v1_settings_providers_response_200_data_item import (
    GetV1SettingsProvidersResponse200DataItem,
)
from .get_v1_settings_providers_response_200_data_item_provider import (
    GetV1SettingsProvidersResponse200DataItemProvider,
)
from .get_v1_settings_providers_response_200_data_item_status import (
    GetV1SettingsProvidersResponse200DataItemStatus,
)
from .get_v1_ssh_keys_response_200 import GetV1SshKeysResponse200
from .get_v1_ssh_keys_response_200_data_item import GetV1SshKeysResponse200DataItem
from .get_v1_ssh_keys_response_200_data_item_key_type import (
    GetV1SshKeysResponse200DataItemKeyType,
)
from .get_v1_templates_response_200 import GetV1TemplatesResponse200
from .get_v1_templates_response_200_data_item import GetV1TemplatesResponse200DataItem
from .get_v1_templates_response_200_data_item_category import (
    GetV1TemplatesResponse200DataItemCategory,
)
from .get_v1_webhooks_id_deliveries_response_200 import (
    GetV1WebhooksIdDeliveriesResponse200,
)
from .get_v1_webhooks_id_deliveries_response_200_data_item import (
    GetV1WebhooksIdDeliveriesResponse200DataItem,
)
from .get_v1_webhooks_id_deliveries_response_200_data_item_attempts_item import (
    GetV1WebhooksIdDeliveriesResponse200DataItemAttemptsItem,
)
from .get_v1_webhooks_id_deliveries_response_200_data_item_event import (
    GetV1WebhooksIdDeliveriesResponse200DataItemEvent,
)
from .get_v1_webhooks_id_deliveries_response_200_data_item_event_data import (
    GetV1WebhooksIdDeliveriesResponse200DataItemEventData,
)
from .get_v1_webhooks_id_deliveries_response_200_data_item_status import (
    GetV1WebhooksIdDeliveriesResponse200DataItemStatus,
)
from .get_v1_webhooks_id_deliveries_status import GetV1WebhooksIdDeliveriesStatus
from .get_v1_webhooks_id_response_200 import GetV1WebhooksIdResponse200
from .get_v1_webhooks_id_response_200_events_item import (
    GetV1WebhooksIdResponse200EventsItem,
)
from .get_v1_webhooks_response_200 import GetV1WebhooksResponse200
from .get_v1_webhooks_response_200_data_item import GetV1WebhooksResponse200DataItem
from .get_v1_webhooks_response_200_data_item_events_item import (
    GetV1WebhooksResponse200DataItemEventsItem,
)
from .post_v1_alerts_body_type_0 import PostV1AlertsBodyType0
from .post_v1_alerts_body_type_0_action import PostV1AlertsBodyType0Action
from .post_v1_alerts_body_type_0_type import PostV1AlertsBodyType0Type
from .post_v1_alerts_body_type_1 import PostV1AlertsBodyType1
from .post_v1_alerts_body_type_1_action import PostV1AlertsBodyType1Action
from .post_v1_alerts_body_type_1_type import PostV1AlertsBodyType1Type
from .post_v1_alerts_response_201 import PostV1AlertsResponse201
from .post_v1_alerts_response_201_action import PostV1AlertsResponse201Action
from .post_v1_alerts_response_201_status import PostV1AlertsResponse201Status
from .post_v1_alerts_response_201_type import PostV1AlertsResponse201Type
from .post_v1_api_keys_body import PostV1ApiKeysBody
from .post_v1_api_keys_body_scopes_item import PostV1ApiKeysBodyScopesItem
from .post_v1_api_keys_body_spend_limit import PostV1ApiKeysBodySpendLimit
from .post_v1_api_keys_body_spend_limit_period import PostV1ApiKeysBodySpendLimitPeriod
from .post_v1_api_keys_response_201 import PostV1ApiKeysResponse201
from .post_v1_api_keys_response_201_scopes_item import (
    PostV1ApiKeysResponse201ScopesItem,
)
from .post_v1_api_keys_response_201_spend_limit_type_0 import (
    PostV1ApiKeysResponse201SpendLimitType0,
)
from .post_v1_api_keys_response_201_spend_limit_type_0_period import (
    PostV1ApiKeysResponse201SpendLimitType0Period,
)
from .post_v1_billing_credit_body import PostV1BillingCreditBody
from .post_v1_billing_credit_response_201 import PostV1BillingCreditResponse201
from .post_v1_billing_stripe_webhook_response_200 import (
    PostV1BillingStripeWebhookResponse200,
)
from .post_v1_compute_launch_body import PostV1ComputeLaunchBody
from .post_v1_compute_launch_body_idle_stop import PostV1ComputeLaunchBodyIdleStop
from .post_v1_compute_launch_body_provider import PostV1ComputeLaunchBodyProvider
from .post_v1_compute_launch_response_201 import PostV1ComputeLaunchResponse201
from .post_v1_compute_launch_response_201_idle_stop import (
    PostV1ComputeLaunchResponse201IdleStop,
)
from .post_v1_compute_launch_response_201_provider import (
    PostV1ComputeLaunchResponse201Provider,
)
from .post_v1_compute_launch_response_201_ssh_type_0 import (
    PostV1ComputeLaunchResponse201SshType0,
)
from .post_v1_compute_launch_response_201_status import (
    PostV1ComputeLaunchResponse201Status,
)
from .post_v1_compute_plan_body_type_0 import PostV1ComputePlanBodyType0
from .post_v1_compute_plan_body_type_0_idle_stop import (
    PostV1ComputePlanBodyType0IdleStop,
)
from .post_v1_compute_plan_body_type_0_provider import (
    PostV1ComputePlanBodyType0Provider,
)
from .post_v1_compute_plan_body_type_1 import PostV1ComputePlanBodyType1
from .post_v1_compute_plan_body_type_1_providers_item import (
    PostV1ComputePlanBodyType1ProvidersItem,
)
from .post_v1_compute_plan_response_200_type_0 import PostV1ComputePlanResponse200Type0
from .post_v1_compute_plan_response_200_type_0_launch import (
    PostV1ComputePlanResponse200Type0Launch,
)
from .post_v1_compute_plan_response_200_type_0_provider import (
    PostV1ComputePlanResponse200Type0Provider,
)
from .post_v1_compute_plan_response_200_type_0_refusal_type_0 import (
    PostV1ComputePlanResponse200Type0RefusalType0,
)
from .post_v1_compute_plan_response_200_type_0_refusal_type_0_details_item import (
    PostV1ComputePlanResponse200Type0RefusalType0DetailsItem,
)
from .post_v1_compute_plan_response_200_type_1 import PostV1ComputePlanResponse200Type1
from .post_v1_compute_plan_response_200_type_1_candidates_item import (
    PostV1ComputePlanResponse200Type1CandidatesItem,
)
from .post_v1_compute_plan_response_200_type_1_candidates_item_launch import (
    PostV1ComputePlanResponse200Type1CandidatesItemLaunch,
)
from .post_v1_compute_plan_response_200_type_1_candidates_item_provider import (
    PostV1ComputePlanResponse200Type1CandidatesItemProvider,
)
from .post_v1_compute_plan_response_200_type_1_candidates_item_refusal_type_0 import (
    PostV1ComputePlanResponse200Type1CandidatesItemRefusalType0,
)
from .post_v1_compute_plan_response_200_type_1_candidates_item_refusal_type_0_details_item import (
    PostV1ComputePlanResponse200Type1CandidatesItemRefusalType0DetailsItem,
)
from .post_v1_compute_provider_instance_id_start_response_200 import (
    PostV1ComputeProviderInstanceIdStartResponse200,
)
from .post_v1_compute_provider_instance_id_start_response_200_idle_stop import (
    PostV1ComputeProviderInstanceIdStartResponse200IdleStop,
)
from .post_v1_compute_provider_instance_id_start_response_200_provider import (
    PostV1ComputeProviderInstanceIdStartResponse200Provider,
)
from .post_v1_compute_provider_instance_id_start_response_200_ssh_type_0 import (
    PostV1ComputeProviderInstanceIdStartResponse200SshType0,
)
from .post_v1_compute_provider_instance_id_start_response_200_status import (
    PostV1ComputeProviderInstanceIdStartResponse200Status,
)
from .post_v1_compute_provider_instance_id_start_response_202 import (
    PostV1ComputeProviderInstanceIdStartResponse202,
)
from .post_v1_compute_provider_instance_id_start_response_202_idle_stop import (
    PostV1ComputeProviderInstanceIdStartResponse202IdleStop,
)
from .post_v1_compute_provider_instance_id_start_response_202_provider import (
    PostV1ComputeProviderInstanceIdStartResponse202Provider,
)
from .post_v1_compute_provider_instance_id_start_response_202_ssh_type_0 import (
    PostV1ComputeProviderInstanceIdStartResponse202SshType0,
)
from .post_v1_compute_provider_instance_id_start_response_202_status import (
    PostV1ComputeProviderInstanceIdStartResponse202Status,
)
from .post_v1_compute_provider_instance_id_stop_response_200 import (
    PostV1ComputeProviderInstanceIdStopResponse200,
)
from .post_v1_compute_provider_instance_id_stop_response_200_idle_stop import (
    PostV1ComputeProviderInstanceIdStopResponse200IdleStop,
)
from .post_v1_compute_provider_instance_id_stop_response_200_provider import (
    PostV1ComputeProviderInstanceIdStopResponse200Provider,
)
from .post_v1_compute_provider_instance_id_stop_response_200_ssh_type_0 import (
    PostV1ComputeProviderInstanceIdStopResponse200SshType0,
)
from .post_v1_compute_provider_instance_id_stop_response_200_status import (
    PostV1ComputeProviderInstanceIdStopResponse200Status,
)
from .post_v1_compute_provider_instance_id_stop_response_202 import (
    PostV1ComputeProviderInstanceIdStopResponse202,
)
from .post_v1_compute_provider_instance_id_stop_response_202_idle_stop import (
    PostV1ComputeProviderInstanceIdStopResponse202IdleStop,
)
from .post_v1_compute_provider_instance_id_stop_response_202_provider import (
    PostV1ComputeProviderInstanceIdStopResponse202Provider,
)
from .post_v1_compute_provider_instance_id_stop_response_202_ssh_type_0 import (
    PostV1ComputeProviderInstanceIdStopResponse202SshType0,
)
from .post_v1_compute_provider_instance_id_stop_response_202_status import (
    PostV1ComputeProviderInstanceIdStopResponse202Status,
)
from .post_v1_compute_provider_instance_id_terminate_response_200 import (
    PostV1ComputeProviderInstanceIdTerminateResponse200,
)
from .post_v1_compute_provider_instance_id_terminate_response_200_idle_stop import (
    PostV1ComputeProviderInstanceIdTerminateResponse200IdleStop,
)
from .post_v1_compute_provider_instance_id_terminate_response_200_provider import (
    PostV1ComputeProviderInstanceIdTerminateResponse200Provider,
)
from .post_v1_compute_provider_instance_id_terminate_response_200_ssh_type_0 import (
    PostV1ComputeProviderInstanceIdTerminateResponse200SshType0,
)
from .post_v1_compute_provider_instance_id_terminate_response_200_status import (
    PostV1ComputeProviderInstanceIdTerminateResponse200Status,
)
from .post_v1_compute_provider_instance_id_terminate_response_202 import (
    PostV1ComputeProviderInstanceIdTerminateResponse202,
)
from .post_v1_compute_provider_instance_id_terminate_response_202_idle_stop import (
    PostV1ComputeProviderInstanceIdTerminateResponse202IdleStop,
)
from .post_v1_compute_provider_instance_id_terminate_response_202_provider import (
    PostV1ComputeProviderInstanceIdTerminateResponse202Provider,
)
from .post_v1_compute_provider_instance_id_terminate_response_202_ssh_type_0 import (
    PostV1ComputeProviderInstanceIdTerminateResponse202SshType0,
)
from .post_v1_compute_provider_instance_id_terminate_response_202_status import (
    PostV1ComputeProviderInstanceIdTerminateResponse202Status,
)
from .post_v1_jobs_body import PostV1JobsBody
from .post_v1_jobs_body_env import PostV1JobsBodyEnv
from .post_v1_jobs_body_idle_stop import PostV1JobsBodyIdleStop
from .post_v1_jobs_body_providers_item import PostV1JobsBodyProvidersItem
from .post_v1_jobs_body_retry import PostV1JobsBodyRetry
from .post_v1_jobs_body_retry_on_item import PostV1JobsBodyRetryOnItem
from .post_v1_jobs_body_spot_policy import PostV1JobsBodySpotPolicy
from .post_v1_jobs_exit_body import PostV1JobsExitBody
from .post_v1_jobs_exit_response_202 import PostV1JobsExitResponse202
from .post_v1_jobs_id_cancel_response_202 import PostV1JobsIdCancelResponse202
from .post_v1_jobs_id_cancel_response_202_attempts_item import (
    PostV1JobsIdCancelResponse202AttemptsItem,
)
from .post_v1_jobs_id_cancel_response_202_attempts_item_provider import (
    PostV1JobsIdCancelResponse202AttemptsItemProvider,
)
from .post_v1_jobs_id_cancel_response_202_providers_item import (
    PostV1JobsIdCancelResponse202ProvidersItem,
)
from .post_v1_jobs_id_cancel_response_202_status import (
    PostV1JobsIdCancelResponse202Status,
)
from .post_v1_jobs_response_200 import PostV1JobsResponse200
from .post_v1_jobs_response_200_attempts_item import PostV1JobsResponse200AttemptsItem
from .post_v1_jobs_response_200_attempts_item_provider import (
    PostV1JobsResponse200AttemptsItemProvider,
)
from .post_v1_jobs_response_200_providers_item import PostV1JobsResponse200ProvidersItem
from .post_v1_jobs_response_200_status import PostV1JobsResponse200Status
from .post_v1_jobs_response_201 import PostV1JobsResponse201
from .post_v1_jobs_response_201_attempts_item import PostV1JobsResponse201AttemptsItem
from .post_v1_jobs_response_201_attempts_item_provider import (
    PostV1JobsResponse201AttemptsItemProvider,
)
from .post_v1_jobs_response_201_providers_item import PostV1JobsResponse201ProvidersItem
from .post_v1_jobs_response_201_status import PostV1JobsResponse201Status
from .post_v1_jobs_tail_body import PostV1JobsTailBody
from .post_v1_jobs_tail_response_202 import PostV1JobsTailResponse202
from .post_v1_schedules_body import PostV1SchedulesBody
from .post_v1_schedules_body_idle_stop import PostV1SchedulesBodyIdleStop
from .post_v1_schedules_id_trigger_response_202 import (
    PostV1SchedulesIdTriggerResponse202,
)
from .post_v1_schedules_response_201 import PostV1SchedulesResponse201
from .post_v1_schedules_response_201_idle_stop import PostV1SchedulesResponse201IdleStop
from .post_v1_schedules_response_201_status import PostV1SchedulesResponse201Status
from .post_v1_settings_providers_body import PostV1SettingsProvidersBody
from .post_v1_settings_providers_body_provider import (
    PostV1SettingsProvidersBodyProvider,
)
from .post_v1_settings_providers_provider_verify_provider import (
    PostV1SettingsProvidersProviderVerifyProvider,
)
from .post_v1_settings_providers_provider_verify_response_200 import (
    PostV1SettingsProvidersProviderVerifyResponse200,
)
from .post_v1_settings_providers_provider_verify_response_200_provider import (
    PostV1SettingsProvidersProviderVerifyResponse200Provider,
)
from .post_v1_settings_providers_provider_verify_response_200_status import (
    PostV1SettingsProvidersProviderVerifyResponse200Status,
)
from .post_v1_settings_providers_response_200 import PostV1SettingsProvidersResponse200
from .post_v1_settings_providers_response_200_provider import (
    PostV1SettingsProvidersResponse200Provider,
)
from .post_v1_settings_providers_response_200_status import (
    PostV1SettingsProvidersResponse200Status,
)
from .post_v1_settings_providers_response_201 import PostV1SettingsProvidersResponse201
from .post_v1_settings_providers_response_201_provider import (
    PostV1SettingsProvidersResponse201Provider,
)
from .post_v1_settings_providers_response_201_status import (
    PostV1SettingsProvidersResponse201Status,
)
from .post_v1_ssh_keys_body import PostV1SshKeysBody
from .post_v1_ssh_keys_response_201 import PostV1SshKeysResponse201
from .post_v1_ssh_keys_response_201_key_type import PostV1SshKeysResponse201KeyType
from .post_v1_webhooks_body import PostV1WebhooksBody
from .post_v1_webhooks_body_events_item import PostV1WebhooksBodyEventsItem
from .post_v1_webhooks_id_deliveries_delivery_id_retry_response_202 import (
    PostV1WebhooksIdDeliveriesDeliveryIdRetryResponse202,
)
from .post_v1_webhooks_id_deliveries_delivery_id_retry_response_202_status import (
    PostV1WebhooksIdDeliveriesDeliveryIdRetryResponse202Status,
)
from .post_v1_webhooks_id_test_response_202 import PostV1WebhooksIdTestResponse202
from .post_v1_webhooks_id_test_response_202_data import (
    PostV1WebhooksIdTestResponse202Data,
)
from .post_v1_webhooks_response_201 import PostV1WebhooksResponse201
from .post_v1_webhooks_response_201_events_item import (
    PostV1WebhooksResponse201EventsItem,
)
from .put_v1_schedules_id_body import PutV1SchedulesIdBody
from .put_v1_schedules_id_body_idle_stop_type_0 import PutV1SchedulesIdBodyIdleStopType0
from .put_v1_schedules_id_body_status import PutV1SchedulesIdBodyStatus
from .put_v1_schedules_id_response_200 import PutV1SchedulesIdResponse200
from .put_v1_schedules_id_response_200_idle_stop import (
    PutV1SchedulesIdResponse200IdleStop,
)
from .put_v1_schedules_id_response_200_status import PutV1SchedulesIdResponse200Status
from .put_v1_ssh_keys_id_default_response_200 import PutV1SshKeysIdDefaultResponse200
from .put_v1_ssh_keys_id_default_response_200_key_type import (
    PutV1SshKeysIdDefaultResponse200KeyType,
)
from .put_v1_webhooks_id_body import PutV1WebhooksIdBody
from .put_v1_webhooks_id_body_events_item import PutV1WebhooksIdBodyEventsItem
from .put_v1_webhooks_id_response_200 import PutV1WebhooksIdResponse200
from .put_v1_webhooks_id_response_200_events_item import (
    PutV1WebhooksIdResponse200EventsItem,
)

__all__ = (
    "DeleteV1AlertsIdResponse200",
    "DeleteV1ApiKeysIdResponse200",
    "DeleteV1ApiKeysIdResponse200ScopesItem",
    "DeleteV1ApiKeysIdResponse200SpendLimitType0",
    "DeleteV1ApiKeysIdResponse200SpendLimitType0Period",
    "DeleteV1SchedulesIdResponse200",
    "DeleteV1SettingsProvidersProviderProvider",
    "DeleteV1SettingsProvidersProviderResponse200",
    "DeleteV1SettingsProvidersProviderResponse200Id",
    "DeleteV1SshKeysIdResponse200",
    "DeleteV1WebhooksIdResponse200",
    "ErrorBody",
    "ErrorBodyError",
    "ErrorBodyErrorDetailsItem",
    "GetV1AlertsResponse200",
    "GetV1AlertsResponse200DataItem",
    "GetV1AlertsResponse200DataItemAction",
    "GetV1AlertsResponse200DataItemStatus",
    "GetV1AlertsResponse200DataItemType",
    "GetV1AlertsStatus",
    "GetV1ApiKeysCurrentResponse200",
    "GetV1ApiKeysCurrentResponse200ScopesItem",
    "GetV1ApiKeysCurrentResponse200SpendLimitType0",
    "GetV1ApiKeysCurrentResponse200SpendLimitType0Period",
    "GetV1ApiKeysResponse200",
    "GetV1ApiKeysResponse200DataItem",
    "GetV1ApiKeysResponse200DataItemScopesItem",
    "GetV1ApiKeysResponse200DataItemSpendLimitType0",
    "GetV1ApiKeysResponse200DataItemSpendLimitType0Period",
    "GetV1BillingBalanceResponse200",
    "GetV1BillingBalanceResponse200Currency",
    "GetV1BillingSummaryResponse200",
    "GetV1BillingSummaryResponse200Currency",
    "GetV1BillingTransactionsResponse200",
    "GetV1BillingTransactionsResponse200DataItem",
    "GetV1BillingTransactionsResponse200DataItemType",
    "GetV1BillingTransactionsType",
    "GetV1ComputeProviderInstanceIdLogsFollow",
    "GetV1ComputeProviderInstanceIdResponse200",
    "GetV1ComputeProviderInstanceIdResponse200Charges",
    "GetV1ComputeProviderInstanceIdResponse200ChargesLatestItem",
    "GetV1ComputeProviderInstanceIdResponse200ChargesLatestItemType",
    "GetV1ComputeProviderInstanceIdResponse200Cost",
    "GetV1ComputeProviderInstanceIdResponse200EndKind",
    "GetV1ComputeProviderInstanceIdResponse200IdleStop",
    "GetV1ComputeProviderInstanceIdResponse200Provider",
    "GetV1ComputeProviderInstanceIdResponse200ProviderView",
    "GetV1ComputeProviderInstanceIdResponse200SshType0",
    "GetV1ComputeProviderInstanceIdResponse200Status",
    "GetV1ComputeProviderInstanceIdResponse200TimelineItem",
    "GetV1ComputeProviderInstanceIdResponse200TimelineItemEvent",
    "GetV1ComputeRefresh",
    "GetV1ComputeResponse200",
    "GetV1ComputeResponse200DataItem",
    "GetV1ComputeResponse200DataItemEndKind",
    "GetV1ComputeResponse200DataItemIdleStop",
    "GetV1ComputeResponse200DataItemProvider",
    "GetV1ComputeResponse200DataItemSshType0",
    "GetV1ComputeResponse200DataItemStatus",
    "GetV1ComputeResponse200ErrorsItem",
    "GetV1ComputeResponse200ErrorsItemProvider",
    "GetV1ComputeResponse200ProvidersItem",
    "GetV1ComputeResponse200ProvidersItemProvider",
    "GetV1ComputeResponse200ProvidersItemStatus",
    "GetV1ComputeStatus",
    "GetV1EventsResponse200",
    "GetV1EventsResponse200DataItem",
    "GetV1EventsResponse200DataItemData",
    "GetV1EventsType",
    "GetV1GpusResponse200",
    "GetV1GpusResponse200DataItem",
    "GetV1GpusResponse200Families",
    "GetV1JobsIdLogsFollow",
    "GetV1JobsIdResponse200",
    "GetV1JobsIdResponse200AttemptsItem",
    "GetV1JobsIdResponse200AttemptsItemProvider",
    "GetV1JobsIdResponse200ProvidersItem",
    "GetV1JobsIdResponse200Status",
    "GetV1JobsResponse200",
    "GetV1JobsResponse200DataItem",
    "GetV1JobsResponse200DataItemAttemptsItem",
    "GetV1JobsResponse200DataItemAttemptsItemProvider",
    "GetV1JobsResponse200DataItemProvidersItem",
    "GetV1JobsResponse200DataItemStatus",
    "GetV1JobsStatus",
    "GetV1LimitsResponse200",
    "GetV1LimitsResponse200DataItem",
    "GetV1LimitsResponse200DataItemName",
    "GetV1PricingCompareResponse200",
    "GetV1PricingCompareResponse200CheapestType0",
    "GetV1PricingCompareResponse200CheapestType0Provider",
    "GetV1PricingCompareResponse200OffersItem",
    "GetV1PricingCompareResponse200OffersItemProvider",
    "GetV1PricingHistoryPeriod",
    "GetV1PricingHistoryResponse200",
    "GetV1PricingHistoryResponse200DataItem",
    "GetV1PricingHistoryResponse200DataItemProvider",
    "GetV1PricingHistoryResponse200OfferKind",
    "GetV1PricingHistoryResponse200Period",
    "GetV1PricingHistorySpot",
    "GetV1PricingResponse200",
    "GetV1PricingResponse200GpuTypesItem",
    "GetV1PricingResponse200GpuTypesItemOffersItem",
    "GetV1PricingResponse200GpuTypesItemOffersItemProvider",
    "GetV1RecommendationsResponse200",
    "GetV1RecommendationsResponse200RecommendationsItem",
    "GetV1RecommendationsResponse200RecommendationsItemAlternative",
    "GetV1RecommendationsResponse200RecommendationsItemAlternativeProvider",
    "GetV1RecommendationsResponse200RecommendationsItemProvider",
    "GetV1RecommendationsSummaryResponse200",
    "GetV1SchedulesIdResponse200",
    "GetV1SchedulesIdResponse200IdleStop",
    "GetV1SchedulesIdResponse200Status",
    "GetV1SchedulesIdRunsResponse200",
    "GetV1SchedulesIdRunsResponse200DataItem",
    "GetV1SchedulesIdRunsResponse200DataItemProvider",
    "GetV1SchedulesIdRunsResponse200DataItemStatus",
    "GetV1SchedulesResponse200",
    "GetV1SchedulesResponse200DataItem",
    "GetV1SchedulesResponse200DataItemIdleStop",
    "GetV1SchedulesResponse200DataItemStatus",
    "GetV1SettingsProvidersResponse200",
    "GetV1SettingsProvidersResponse200DataItem",
    "GetV1SettingsProvidersResponse200DataItemProvider",
    "GetV1SettingsProvidersResponse200DataItemStatus",
    "GetV1SshKeysResponse200",
    "GetV1SshKeysResponse200DataItem",
    "GetV1SshKeysResponse200DataItemKeyType",
    "GetV1TemplatesResponse200",
    "GetV1TemplatesResponse200DataItem",
    "GetV1TemplatesResponse200DataItemCategory",
    "GetV1WebhooksIdDeliveriesResponse200",
    "GetV1WebhooksIdDeliveriesResponse200DataItem",
    "GetV1WebhooksIdDeliveriesResponse200DataItemAttemptsItem",
    "GetV1WebhooksIdDeliveriesResponse200DataItemEvent",
    "GetV1WebhooksIdDeliveriesResponse200DataItemEventData",
    "GetV1WebhooksIdDeliveriesResponse200DataItemStatus",
    "GetV1WebhooksIdDeliveriesStatus",
    "GetV1WebhooksIdResponse200",
    "GetV1WebhooksIdResponse200EventsItem",
    "GetV1WebhooksResponse200",
    "GetV1WebhooksResponse200DataItem",
    "GetV1WebhooksResponse200DataItemEventsItem",
    "PostV1AlertsBodyType0",
    "PostV1AlertsBodyType0Action",
    "PostV1AlertsBodyType0Type",
    "PostV1AlertsBodyType1",
    "PostV1AlertsBodyType1Action",
    "PostV1AlertsBodyType1Type",
    "PostV1AlertsResponse201",
    "PostV1AlertsResponse201Action",
    "PostV1AlertsResponse201Status",
    "PostV1AlertsResponse201Type",
    "PostV1ApiKeysBody",
    "PostV1ApiKeysBodyScopesItem",
    "PostV1ApiKeysBodySpendLimit",
    "PostV1ApiKeysBodySpendLimitPeriod",
    "PostV1ApiKeysResponse201",
    "PostV1ApiKeysResponse201ScopesItem",
    "PostV1ApiKeysResponse201SpendLimitType0",
    "PostV1ApiKeysResponse201SpendLimitType0Period",
    "PostV1BillingCreditBody",
    "PostV1BillingCreditResponse201",
    "PostV1BillingStripeWebhookResponse200",
    "PostV1ComputeLaunchBody",
    "PostV1ComputeLaunchBodyIdleStop",
    "PostV1ComputeLaunchBodyProvider",
    "PostV1ComputeLaunchResponse201",
    "PostV1ComputeLaunchResponse201IdleStop",
    "PostV1ComputeLaunchResponse201Provider",
    "PostV1ComputeLaunchResponse201SshType0",
    "PostV1ComputeLaunchResponse201Status",
    "PostV1ComputePlanBodyType0",
    "PostV1ComputePlanBodyType0IdleStop",
    "PostV1ComputePlanBodyType0Provider",
    "PostV1ComputePlanBodyType1",
    "PostV1ComputePlanBodyType1ProvidersItem",
    "PostV1ComputePlanResponse200Type0",
    "PostV1ComputePlanResponse200Type0Launch",
    "PostV1ComputePlanResponse200Type0Provider",
    "PostV1ComputePlanResponse200Type0RefusalType0",
    "PostV1ComputePlanResponse200Type0RefusalType0DetailsItem",
    "PostV1ComputePlanResponse200Type1",
    "PostV1ComputePlanResponse200Type1CandidatesItem",
    "PostV1ComputePlanResponse200Type1CandidatesItemLaunch",
    "PostV1ComputePlanResponse200Type1CandidatesItemProvider",
    "PostV1ComputePlanResponse200Type1CandidatesItemRefusalType0",
    "PostV1ComputePlanResponse200Type1CandidatesItemRefusalType0DetailsItem",
    "PostV1ComputeProviderInstanceIdStartResponse200",
    "PostV1ComputeProviderInstanceIdStartResponse200IdleStop",
    "PostV1ComputeProviderInstanceIdStartResponse200Provider",
    "PostV1ComputeProviderInstanceIdStartResponse200SshType0",
    "PostV1ComputeProviderInstanceIdStartResponse200Status",
    "PostV1ComputeProviderInstanceIdStartResponse202",
    "PostV1ComputeProviderInstanceIdStartResponse202IdleStop",
    "PostV1ComputeProviderInstanceIdStartResponse202Provider",
    "PostV1ComputeProviderInstanceIdStartResponse202SshType0",
    "PostV1ComputeProviderInstanceIdStartResponse202Status",
    "PostV1ComputeProviderInstanceIdStopResponse200",
    "PostV1ComputeProviderInstanceIdStopResponse200IdleStop",
    "PostV1ComputeProviderInstanceIdStopResponse200Provider",
    "PostV1ComputeProviderInstanceIdStopResponse200SshType0",
    "PostV1ComputeProviderInstanceIdStopResponse200Status",
    "PostV1ComputeProviderInstanceIdStopResponse202",
    "PostV1ComputeProviderInstanceIdStopResponse202IdleStop",
    "PostV1ComputeProviderInstanceIdStopResponse202Provider",
    "PostV1ComputeProviderInstanceIdStopResponse202SshType0",
    "PostV1ComputeProviderInstanceIdStopResponse202Status",
    "PostV1ComputeProviderInstanceIdTerminateResponse200",
    "PostV1ComputeProviderInstanceIdTerminateResponse200IdleStop",
    "PostV1ComputeProviderInstanceIdTerminateResponse200Provider",
    "PostV1ComputeProviderInstanceIdTerminateResponse200SshType0",
    "PostV1ComputeProviderInstanceIdTerminateResponse200Status",
    "PostV1ComputeProviderInstanceIdTerminateResponse202",
    "PostV1ComputeProviderInstanceIdTerminateResponse202IdleStop",
    "PostV1ComputeProviderInstanceIdTerminateResponse202Provider",
    "PostV1ComputeProviderInstanceIdTerminateResponse202SshType0",
    "PostV1ComputeProviderInstanceIdTerminateResponse202Status",
    "PostV1JobsBody",
    "PostV1JobsBodyEnv",
    "PostV1JobsBodyIdleStop",
    "PostV1JobsBodyProvidersItem",
    "PostV1JobsBodyRetry",
    "PostV1JobsBodyRetryOnItem",
    "PostV1JobsBodySpotPolicy",
    "PostV1JobsExitBody",
    "PostV1JobsExitResponse202",
    "PostV1JobsIdCancelResponse202",
    "PostV1JobsIdCancelResponse202AttemptsItem",
    "PostV1JobsIdCancelResponse202AttemptsItemProvider",
    "PostV1JobsIdCancelResponse202ProvidersItem",
    "PostV1JobsIdCancelResponse202Status",
    "PostV1JobsResponse200",
    "PostV1JobsResponse200AttemptsItem",
    "PostV1JobsResponse200AttemptsItemProvider",
    "PostV1JobsResponse200ProvidersItem",
    "PostV1JobsResponse200Status",
    "PostV1JobsResponse201",
    "PostV1JobsResponse201AttemptsItem",
    "PostV1JobsResponse201AttemptsItemProvider",
    "PostV1JobsResponse201ProvidersItem",
    "PostV1JobsResponse201Status",
    "PostV1JobsTailBody",
    "PostV1JobsTailResponse202",
    "PostV1SchedulesBody",
    "PostV1SchedulesBodyIdleStop",
    "PostV1SchedulesIdTriggerResponse202",
    "PostV1SchedulesResponse201",
    "PostV1SchedulesResponse201IdleStop",
    "PostV1SchedulesResponse201Status",
    "PostV1SettingsProvidersBody",
    "PostV1SettingsProvidersBodyProvider",
    "PostV1SettingsProvidersProviderVerifyProvider",
    "PostV1SettingsProvidersProviderVerifyResponse200",
    "PostV1SettingsProvidersProviderVerifyResponse200Provider",
    "PostV1SettingsProvidersProviderVerifyResponse200Status",
    "PostV1SettingsProvidersResponse200",
    "PostV1SettingsProvidersResponse200Provider",
    "PostV1SettingsProvidersResponse200Status",
    "PostV1SettingsProvidersResponse201",
    "PostV1SettingsProvidersResponse201Provider",
    "PostV1SettingsProvidersResponse201Status",
    "PostV1SshKeysBody",
    "PostV1SshKeysResponse201",
    "PostV1SshKeysResponse201KeyType",
    "PostV1WebhooksBody",
    "PostV1WebhooksBodyEventsItem",
    "PostV1WebhooksIdDeliveriesDeliveryIdRetryResponse202",
    "PostV1WebhooksIdDeliveriesDeliveryIdRetryResponse202Status",
    "PostV1WebhooksIdTestResponse202",
    "PostV1WebhooksIdTestResponse202Data",
    "PostV1WebhooksResponse201",
    "PostV1WebhooksResponse201EventsItem",
    "PutV1SchedulesIdBody",
    "PutV1SchedulesIdBodyIdleStopType0",
    "PutV1SchedulesIdBodyStatus",
    "PutV1SchedulesIdResponse200",
    "PutV1SchedulesIdResponse200IdleStop",
    "PutV1SchedulesIdResponse200Status",
    "PutV1SshKeysIdDefaultResponse200",
    "PutV1SshKeysIdDefaultResponse200KeyType",
    "PutV1WebhooksIdBody",
    "PutV1WebhooksIdBodyEventsItem",
    "PutV1WebhooksIdResponse200",
    "PutV1WebhooksIdResponse200EventsItem",
)
