"""The OpenAPI document this package was generated from (`npm run sdk:generate`)."""

OPENAPI_SHA256 = "0cd4358378e64b1682770c1dd7c08c3b1094dff9dd2ef5a8c8fbcc38635cc914"
