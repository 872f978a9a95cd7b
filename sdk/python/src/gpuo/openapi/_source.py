"""The OpenAPI document this package was generated from (`npm run sdk:generate`)."""

OPENAPI_SHA256 = "864d2d4aeb4b47a5009ac810638b311b03011951fff9620b24e74161d6f693ab"
