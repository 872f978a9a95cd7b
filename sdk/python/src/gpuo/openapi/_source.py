"""The OpenAPI document this package was generated from (`npm run sdk:generate`)."""

OPENAPI_SHA256 = "9613fa34e06dca1353d2d0d4b5d401c5b01fc6cc1503dd116c7412027933ffbf"
