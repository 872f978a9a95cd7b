"""The OpenAPI document this package was generated from (`npm run sdk:generate`)."""

OPENAPI_SHA256 = "fa181a140bc7d77cac97e620fb10db2bf55dae420bb201929107a50b2bcc1721"
