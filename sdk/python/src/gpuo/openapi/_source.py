"""The OpenAPI document this package was generated from (`npm run sdk:generate`)."""

OPENAPI_SHA256 = "137d81171d1941b2bd7eaaccd4a6788140bbd4426b00d76aed6612006d9c3217"
