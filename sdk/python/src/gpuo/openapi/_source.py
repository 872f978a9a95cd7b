"""The OpenAPI document this package was generated from (`npm run sdk:generate`)."""

OPENAPI_SHA256 = "a6b1678123f208f8ac18c75fbebf390bb296d646cf524458d0f77b664cae7a44"
