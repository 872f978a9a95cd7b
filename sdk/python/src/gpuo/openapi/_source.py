"""The OpenAPI document this package was generated from (`npm run sdk:generate`)."""

OPENAPI_SHA256 = "2d433ef55caa26c5095337d053fc4041e7ae1280a11fb1c07f824b4cb9171346"
