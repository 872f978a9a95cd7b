"""The OpenAPI document this package was generated from (`npm run sdk:generate`)."""

OPENAPI_SHA256 = "6fcd87dcb9a584a5e7e7aa6dece2c6200f1a7829e852d472b6a7045ab60ea124"
