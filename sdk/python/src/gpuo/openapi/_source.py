"""The OpenAPI document this package was generated from (`npm run sdk:generate`)."""

OPENAPI_SHA256 = "a26f4c35e9aef807b510609910302467fae0b0b70e788b94edfcc0618b766843"
