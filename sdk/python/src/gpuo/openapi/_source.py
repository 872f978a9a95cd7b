"""The OpenAPI document this package was generated from (`npm run sdk:generate`)."""

OPENAPI_SHA256 = "722155176b5c8925ca3043b678330e682ab415021256257f0a045e0a31d6213b"
