"""The OpenAPI document this package was generated from (`npm run sdk:generate`)."""

OPENAPI_SHA256 = "f9b9e3ac53b015eeb054459c810a99c3a41e2c0aaf7f3b018289ea820c6cefb6"
