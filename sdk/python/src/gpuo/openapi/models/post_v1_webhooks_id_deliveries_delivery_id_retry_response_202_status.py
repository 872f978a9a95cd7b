from enum import StrEnum


class PostV1WebhooksIdDeliveriesDeliveryIdRetryResponse202Status(StrEnum):
    CANCELLED = "cancelled"
    FAILED = "failed"
    PENDING = "pending"
    SUCCEEDED = "succeeded"

    def __str__(self) -> str:
        return str(self.value)
