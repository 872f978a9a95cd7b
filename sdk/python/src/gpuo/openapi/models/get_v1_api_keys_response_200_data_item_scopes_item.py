from enum import StrEnum


class GetV1ApiKeysResponse200DataItemScopesItem(StrEnum):
    ALERTSWRITE = "alerts:write"
    BILLINGWRITE = "billing:write"
    COMPUTEWRITE = "compute:write"
    KEYSADMIN = "keys:admin"
    READ = "read"
    SCHEDULESWRITE = "schedules:write"
    SETTINGSWRITE = "settings:write"
    WEBHOOKSWRITE = "webhooks:write"

    def __str__(self) -> str:
        return str(self.value)
