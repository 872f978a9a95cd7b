"""The OpenAPI document this package was generated from (`npm run sdk:generate`)."""

OPENAPI_SHA256 = "1c4e903a116df80710cfd54c6d3cf58b0b05bafa462cd33787f0c1e87aa3f413"
