"""The OpenAPI document this package was generated from (`npm run sdk:generate`)."""

OPENAPI_SHA256 = "2b569d39ba54cd623ff5ae53ee45aa89bd82ebf17d39074d9ac5b300d50a9b4a"
