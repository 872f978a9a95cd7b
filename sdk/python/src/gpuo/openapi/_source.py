"""The OpenAPI document this package was generated from (`npm run sdk:generate`)."""

OPENAPI_SHA256 = "6996f681e963e5e51f8935889da132c9510c1653abcbf2858a5895a0c29abd81"
