"""The OpenAPI document this package was generated from (`npm run sdk:generate`)."""

OPENAPI_SHA256 = "cdb62acadc77b318e89a093046c147ccc0d951537c4409323cb2252cdd3a0e3c"
