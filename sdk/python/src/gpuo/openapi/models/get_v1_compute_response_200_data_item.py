from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.get_v1_compute_response_200_data_item_end_kind import (
    GetV1ComputeResponse200DataItemEndKind,
)
from ..models.get_v1_compute_response_200_data_item_provider import (
    GetV1ComputeResponse200DataItemProvider,
)
from ..models.get_v1_compute_response_200_data_item_status import (
    GetV1ComputeResponse200DataItemStatus,
)
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.get_v1_compute_response_200_data_item_idle_stop import (
        GetV1ComputeResponse200DataItemIdleStop,
    )
    from ..models.get_v1_compute_response_200_data_item_ssh_type_0 import (
        GetV1ComputeResponse200DataItemSshType0,
    )


T = TypeVar("T", bound="GetV1ComputeResponse200DataItem")


@_attrs_define
class GetV1ComputeResponse200DataItem:
    """
    Attributes:
        id (str): the provider's own instance id (used in paths)
        provider (GetV1ComputeResponse200DataItemProvider):
        name (None | str):
        status (GetV1ComputeResponse200DataItemStatus):
        provider_status (None | str):
        gpu_type (None | str):
        gpu_count (int):
        price_per_hour (float | None): dollars per hour for the whole instance
        spot (bool):
        region (None | str):
        docker_image (None | str):
        public_ip (None | str):
        ssh (GetV1ComputeResponse200DataItemSshType0 | None):
        created_at (None | str): ISO 8601 UTC timestamp
        managed (bool): true for instances launched through this service
        observed_at (None | str): when the provider last reported this instance (its create answer for one not listed
            yet)
        gpu_utilization (list[float] | None): percent per GPU as the provider last reported it (runpod, vastai); null
            where not reported
        warnings (list[str] | Unset):
        end_reason (str | Unset): why the service itself stopped or ended the instance, when it did
        idle_stop (GetV1ComputeResponse200DataItemIdleStop | Unset): the idle-stop rule the instance was launched with
            (beyond the spec); absent: none
        stale (bool | Unset): present when the provider's last round failed: this is its last good view
        started_at (None | str | Unset): `status=ended`: when metering started (null: it never ran)
        ended_at (None | str | Unset): `status=ended`: when it ended
        end_kind (GetV1ComputeResponse200DataItemEndKind | Unset): `status=ended`: why it ended, as one word
            (`end_reason` has the sentence)
        total_cost (float | Unset): `status=ended`: what the ledger charged the instance in all
    """

    id: str
    provider: GetV1ComputeResponse200DataItemProvider
    name: None | str
    status: GetV1ComputeResponse200DataItemStatus
    provider_status: None | str
    gpu_type: None | str
    gpu_count: int
    price_per_hour: float | None
    spot: bool
    region: None | str
    docker_image: None | str
    public_ip: None | str
    ssh: GetV1ComputeResponse200DataItemSshType0 | None
    created_at: None | str
    managed: bool
    observed_at: None | str
    gpu_utilization: list[float] | None
    warnings: list[str] | Unset = UNSET
    end_reason: str | Unset = UNSET
    idle_stop: GetV1ComputeResponse200DataItemIdleStop | Unset = UNSET
    stale: bool | Unset = UNSET
    started_at: None | str | Unset = UNSET
    ended_at: None | str | Unset = UNSET
    end_kind: GetV1ComputeResponse200DataItemEndKind | Unset = UNSET
    total_cost: float | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.get_v1_compute_response_200_data_item_ssh_type_0 import (
            GetV1ComputeResponse200DataItemSshType0,
        )

        id = self.id

        provider = self.provider.value

        name: None | str
        name = self.name

        status = self.status.value

        provider_status: None | str
        provider_status = self.provider_status

        gpu_type: None | str
        gpu_type = self.gpu_type

        gpu_count = self.gpu_count

        price_per_hour: float | None
        price_per_hour = self.price_per_hour

        spot = self.spot

        region: None | str
        region = self.region

        docker_image: None | str
        docker_image = self.docker_image

        public_ip: None | str
        public_ip = self.public_ip

        ssh: dict[str, Any] | None
        if isinstance(self.ssh, GetV1ComputeResponse200DataItemSshType0):
            ssh = self.ssh.to_dict()
        else:
            ssh = self.ssh

        created_at: None | str
        created_at = self.created_at

        managed = self.managed

        observed_at: None | str
        observed_at = self.observed_at

        gpu_utilization: list[float] | None
        if isinstance(self.gpu_utilization, list):
            gpu_utilization = self.gpu_utilization

        else:
            gpu_utilization = self.gpu_utilization

        warnings: list[str] | Unset = UNSET
        if not isinstance(self.warnings, Unset):
            warnings = self.warnings

        end_reason = self.end_reason

        idle_stop: dict[str, Any] | Unset = UNSET
        if not isinstance(self.idle_stop, Unset):
            idle_stop = self.idle_stop.to_dict()

        stale = self.stale

        started_at: None | str | Unset
        if isinstance(self.started_at, Unset):
            started_at = UNSET
        else:
            started_at = self.started_at

        ended_at: None | str | Unset
        if isinstance(self.ended_at, Unset):
            ended_at = UNSET
        else:
            ended_at = self.ended_at

        end_kind: str | Unset = UNSET
        if not isinstance(self.end_kind, Unset):
            end_kind = self.end_kind.value

        total_cost = self.total_cost

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "provider": provider,
                "name": name,
                "status": status,
                "provider_status": provider_status,
                "gpu_type": gpu_type,
                "gpu_count": gpu_count,
                "price_per_hour": price_per_hour,
                "spot": spot,
                "region": region,
                "docker_image": docker_image,
                "public_ip": public_ip,
                "ssh": ssh,
                "created_at": created_at,
                "managed": managed,
                "observed_at": observed_at,
                "gpu_utilization": gpu_utilization,
            }
        )
        if warnings is not UNSET:
            field_dict["warnings"] = warnings
        if end_reason is not UNSET:
            field_dict["end_reason"] = end_reason
        if idle_stop is not UNSET:
            field_dict["idle_stop"] = idle_stop
        if stale is not UNSET:
            field_dict["stale"] = stale
        if started_at is not UNSET:
            field_dict["started_at"] = started_at
        if ended_at is not UNSET:
            field_dict["ended_at"] = ended_at
        if end_kind is not UNSET:
            field_dict["end_kind"] = end_kind
        if total_cost is not UNSET:
            field_dict["total_cost"] = total_cost

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.get_v1_compute_response_200_data_item_idle_stop import (
            GetV1ComputeResponse200DataItemIdleStop,
        )
        from ..models.get_v1_compute_response_200_data_item_ssh_type_0 import (
            GetV1ComputeResponse200DataItemSshType0,
        )

        d = dict(src_dict)
        id = d.pop("id")

        provider = GetV1ComputeResponse200DataItemProvider(d.pop("provider"))

        def _parse_name(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        name = _parse_name(d.pop("name"))

        status = GetV1ComputeResponse200DataItemStatus(d.pop("status"))

        def _parse_provider_status(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        provider_status = _parse_provider_status(d.pop("provider_status"))

        def _parse_gpu_type(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        gpu_type = _parse_gpu_type(d.pop("gpu_type"))

        gpu_count = d.pop("gpu_count")

        def _parse_price_per_hour(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        price_per_hour = _parse_price_per_hour(d.pop("price_per_hour"))

        spot = d.pop("spot")

        def _parse_region(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        region = _parse_region(d.pop("region"))

        def _parse_docker_image(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        docker_image = _parse_docker_image(d.pop("docker_image"))

        def _parse_public_ip(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        public_ip = _parse_public_ip(d.pop("public_ip"))

        def _parse_ssh(data: object) -> GetV1ComputeResponse200DataItemSshType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                ssh_type_0 = GetV1ComputeResponse200DataItemSshType0.from_dict(data)

                return ssh_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(GetV1ComputeResponse200DataItemSshType0 | None, data)

        ssh = _parse_ssh(d.pop("ssh"))

        def _parse_created_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        created_at = _parse_created_at(d.pop("created_at"))

        managed = d.pop("managed")

        def _parse_observed_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        observed_at = _parse_observed_at(d.pop("observed_at"))

        def _parse_gpu_utilization(data: object) -> list[float] | None:
            if data is None:
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                gpu_utilization_type_0 = cast(list[float], data)

                return gpu_utilization_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[float] | None, data)

        gpu_utilization = _parse_gpu_utilization(d.pop("gpu_utilization"))

        warnings = cast(list[str], d.pop("warnings", UNSET))

        end_reason = d.pop("end_reason", UNSET)

        _idle_stop = d.pop("idle_stop", UNSET)
        idle_stop: GetV1ComputeResponse200DataItemIdleStop | Unset
        if isinstance(_idle_stop, Unset):
            idle_stop = UNSET
        else:
            idle_stop = GetV1ComputeResponse200DataItemIdleStop.from_dict(_idle_stop)

        stale = d.pop("stale", UNSET)

        def _parse_started_at(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        started_at = _parse_started_at(d.pop("started_at", UNSET))

        def _parse_ended_at(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        ended_at = _parse_ended_at(d.pop("ended_at", UNSET))

        _end_kind = d.pop("end_kind", UNSET)
        end_kind: GetV1ComputeResponse200DataItemEndKind | Unset
        if isinstance(_end_kind, Unset):
            end_kind = UNSET
        else:
            end_kind = GetV1ComputeResponse200DataItemEndKind(_end_kind)

        total_cost = d.pop("total_cost", UNSET)

        get_v1_compute_response_200_data_item = cls(
            id=id,
            provider=provider,
            name=name,
            status=status,
            provider_status=provider_status,
            gpu_type=gpu_type,
            gpu_count=gpu_count,
            price_per_hour=price_per_hour,
            spot=spot,
            region=region,
            docker_image=docker_image,
            public_ip=public_ip,
            ssh=ssh,
            created_at=created_at,
            managed=managed,
            observed_at=observed_at,
            gpu_utilization=gpu_utilization,
            warnings=warnings,
            end_reason=end_reason,
            idle_stop=idle_stop,
            stale=stale,
            started_at=started_at,
            ended_at=ended_at,
            end_kind=end_kind,
            total_cost=total_cost,
        )

        get_v1_compute_response_200_data_item.additional_properties = d
        return get_v1_compute_response_200_data_item

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
