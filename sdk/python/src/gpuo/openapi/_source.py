"""The OpenAPI document this package was generated from (`npm run sdk:generate`)."""

OPENAPI_SHA256 = "e3a8157ee97001c5089a70da221e8abe6667dd7c8835dbd23afb7bb8827968d7"
