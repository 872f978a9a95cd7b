from enum import StrEnum


class PostV1AlertsBodyType0Type(StrEnum):
    PRICE_DROP = "price_drop"

    def __str__(self) -> str:
        return str(self.value)
