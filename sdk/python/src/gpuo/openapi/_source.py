"""The OpenAPI document this package was generated from (`npm run sdk:generate`)."""

OPENAPI_SHA256 = "cba60e5791c15a793d16f3752f84376817c47fff60b0068a179b96feea4531f6"
