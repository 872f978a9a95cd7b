from enum import StrEnum


class GetV1PricingHistoryResponse200OfferKind(StrEnum):
    ON_DEMAND = "on_demand"
    SPOT = "spot"

    def __str__(self) -> str:
        return str(self.value)
