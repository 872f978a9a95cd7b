from enum import StrEnum


class GetV1LimitsResponse200DataItemName(StrEnum):
    ALERTS = "alerts"
    API_KEYS = "api_keys"
    LIVE_INSTANCES = "live_instances"
    SCHEDULES = "schedules"
    SSH_KEYS = "ssh_keys"
    WEBHOOKS = "webhooks"
    WEBHOOK_URLS = "webhook_urls"

    def __str__(self) -> str:
        return str(self.value)
