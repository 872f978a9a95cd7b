"""The OpenAPI document this package was generated from (`npm run sdk:generate`)."""

OPENAPI_SHA256 = "079aa6cad7422d1fdaabcaafff01c46a6a3b870e9bdf65a61f9a2de6560be7e3"
