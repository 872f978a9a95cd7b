"""The OpenAPI document this package was generated from (`npm run sdk:generate`)."""

OPENAPI_SHA256 = "4b6f0135eaee4b1049a0bab18a4c42f4dc5b7cb9812a5176566b1d9cb54a9241"
