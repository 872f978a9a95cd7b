from enum import StrEnum


class GetV1ComputeProviderInstanceIdResponse200ChargesLatestItemType(StrEnum):
    CREDIT_DISPUTE = "credit_dispute"
    CREDIT_GRANT = "credit_grant"
    CREDIT_REFUND = "credit_refund"
    CREDIT_TOPUP = "credit_topup"
    INSTANCE_CHARGE = "instance_charge"
    INSTANCE_STORAGE_CHARGE = "instance_storage_charge"

    def __str__(self) -> str:
        return str(self.value)
