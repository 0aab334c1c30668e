from django.urls import path

from .apis import TableActApi, TableDetailApi, TableLeaveApi, TableListApi, TableLogApi

urlpatterns = [
    path("", TableListApi.as_view(), name="table-list"),
    path("<int:table_id>/", TableDetailApi.as_view(), name="table-detail"),
    path("<int:table_id>/act/", TableActApi.as_view(), name="table-act"),
    path("<int:table_id>/leave/", TableLeaveApi.as_view(), name="table-leave"),
    path("<int:table_id>/log/", TableLogApi.as_view(), name="table-log"),
]
