"""The OpenAPI document this package was generated from (`npm run sdk:generate`)."""

OPENAPI_SHA256 = "99109e202402fa67dccfdd533558565a3c939db4a1082d65c73da5cb937911c9"
