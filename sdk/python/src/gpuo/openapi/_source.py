"""The OpenAPI document this package was generated from (`npm run sdk:generate`)."""

OPENAPI_SHA256 = "0dd133548e99117ddc70f86b799e02e2f5b1be5f17424ca4ccd6eef312a25901"
