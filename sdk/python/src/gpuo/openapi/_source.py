"""The OpenAPI document this package was generated from (`npm run sdk:generate`)."""

OPENAPI_SHA256 = "1a3abf917be920b8ec92c7978fe75650c500dc3024ef6931a96477538f271ed6"
