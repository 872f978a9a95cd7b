"""The OpenAPI document this package was generated from (`npm run sdk:generate`)."""

OPENAPI_SHA256 = "cd4e546688c821e85dc7ae51c7f65ad07bbf5a4d254eeb94b1ffa9bd1d2956b6"
