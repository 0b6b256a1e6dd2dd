from django.apps import AppConfig


class CatalogConfig(AppConfig):
    name = "studio.catalog"
    label = "catalog"
