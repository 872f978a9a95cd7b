"""The OpenAPI document this package was generated from (`npm run sdk:generate`)."""

OPENAPI_SHA256 = "fc18c662a4526c2706ac8b2df5fe05ef02a0a882cf8245c15d034bdb2c7c8fa4"
