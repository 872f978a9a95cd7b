from enum import StrEnum


class PutV1WebhooksIdResponse200EventsItem(StrEnum):
    ALERT_TRIGGERED = "alert.triggered"
    API_KEY_CREATED = "api_key.created"
    API_KEY_REVOKED = "api_key.revoked"
    BILLING_BALANCE_DEPLETED = "billing.balance_depleted"
    BILLING_BALANCE_LOW = "billing.balance_low"
    BILLING_CREDIT_ADDED = "billing.credit_added"
    BILLING_CREDIT_REVERSED = "billing.credit_reversed"
    INSTANCE_FAILED = "instance.failed"
    INSTANCE_IDLE_STOPPED = "instance.idle_stopped"
    INSTANCE_STARTED = "instance.started"
    INSTANCE_STOPPED = "instance.stopped"
    INSTANCE_TERMINATED = "instance.terminated"
    JOB_ATTEMPT_ENDED = "job.attempt_ended"
    JOB_CANCELLED = "job.cancelled"
    JOB_FAILED = "job.failed"
    JOB_RETRYING = "job.retrying"
    JOB_STARTED = "job.started"
    JOB_SUCCEEDED = "job.succeeded"
    SCHEDULE_RUN_COMPLETED = "schedule.run.completed"
    SCHEDULE_RUN_FAILED = "schedule.run.failed"
    SCHEDULE_RUN_STARTED = "schedule.run.started"
    SPOT_PREEMPTED = "spot.preempted"
    WEBHOOK_TEST = "webhook.test"

    def __str__(self) -> str:
        return str(self.value)
