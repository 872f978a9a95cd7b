from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.get_v1_compute_provider_instance_id_response_200_end_kind import (
    GetV1ComputeProviderInstanceIdResponse200EndKind,
)
from ..models.get_v1_compute_provider_instance_id_response_200_provider import (
    GetV1ComputeProviderInstanceIdResponse200Provider,
)
from ..models.get_v1_compute_provider_instance_id_response_200_status import (
    GetV1ComputeProviderInstanceIdResponse200Status,
)
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.get_v1_compute_provider_instance_id_response_200_charges import (
        GetV1ComputeProviderInstanceIdResponse200Charges,
    )
    from ..models.get_v1_compute_provider_instance_id_response_200_cost import (
        GetV1ComputeProviderInstanceIdResponse200Cost,
    )
    from ..models.get_v1_compute_provider_instance_id_response_200_idle_stop import (
        GetV1ComputeProviderInstanceIdResponse200IdleStop,
    )
    from ..models.get_v1_compute_provider_instance_id_response_200_provider_view import (
        GetV1ComputeProviderInstanceIdResponse200ProviderView,
    )
    from ..models.get_v1_compute_provider_instance_id_response_200_ssh_type_0 import (
        GetV1ComputeProviderInstanceIdResponse200SshType0,
    )
    from ..models.get_v1_compute_provider_instance_id_response_200_timeline_item import (
        GetV1ComputeProviderInstanceIdResponse200TimelineItem,
    )


T = TypeVar("T", bound="GetV1ComputeProviderInstanceIdResponse200")


@_attrs_define
class GetV1ComputeProviderInstanceIdResponse200:
    """
    Attributes:
        id (str): the provider's own instance id (used in paths)
        provider (GetV1ComputeProviderInstanceIdResponse200Provider):
        name (None | str):
        status (GetV1ComputeProviderInstanceIdResponse200Status):
        provider_status (None | str):
        gpu_type (None | str):
        gpu_count (int):
        price_per_hour (float | None): dollars per hour for the whole instance
        spot (bool):
        region (None | str):
        docker_image (None | str):
        public_ip (None | str):
        ssh (GetV1ComputeProviderInstanceIdResponse200SshType0 | None):
        created_at (None | str): ISO 8601 UTC timestamp
        managed (bool): true for instances launched through this service
        started_at (None | str): when metering started (the provider reported it running)
        ended_at (None | str): ISO 8601 UTC timestamp
        timeline (list[GetV1ComputeProviderInstanceIdResponse200TimelineItem]): what happened to the instance, in the
            order it happened; `running` is at the start the provider reported, which can be a moment before its create
            answered (`created`)
        cost (GetV1ComputeProviderInstanceIdResponse200Cost): the cost of the instance so far, at `price_per_hour`
        charges (GetV1ComputeProviderInstanceIdResponse200Charges):
        warnings (list[str] | Unset):
        end_reason (str | Unset): why the service itself stopped or ended the instance, when it did
        idle_stop (GetV1ComputeProviderInstanceIdResponse200IdleStop | Unset): the idle-stop rule the instance was
            launched with (beyond the spec); absent: none
        end_kind (GetV1ComputeProviderInstanceIdResponse200EndKind | Unset): present once the instance ended: why, as
            one word (`end_reason` has the sentence)
        provider_view (GetV1ComputeProviderInstanceIdResponse200ProviderView | Unset): what the provider last listed,
            when it differs from an ended record (the service keeps ending it)
    """

    id: str
    provider: GetV1ComputeProviderInstanceIdResponse200Provider
    name: None | str
    status: GetV1ComputeProviderInstanceIdResponse200Status
    provider_status: None | str
    gpu_type: None | str
    gpu_count: int
    price_per_hour: float | None
    spot: bool
    region: None | str
    docker_image: None | str
    public_ip: None | str
    ssh: GetV1ComputeProviderInstanceIdResponse200SshType0 | None
    created_at: None | str
    managed: bool
    started_at: None | str
    ended_at: None | str
    timeline: list[GetV1ComputeProviderInstanceIdResponse200TimelineItem]
    cost: GetV1ComputeProviderInstanceIdResponse200Cost
    charges: GetV1ComputeProviderInstanceIdResponse200Charges
    warnings: list[str] | Unset = UNSET
    end_reason: str | Unset = UNSET
    idle_stop: GetV1ComputeProviderInstanceIdResponse200IdleStop | Unset = UNSET
    end_kind: GetV1ComputeProviderInstanceIdResponse200EndKind | Unset = UNSET
    provider_view: GetV1ComputeProviderInstanceIdResponse200ProviderView | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.get_v1_compute_provider_instance_id_response_200_ssh_type_0 import (
            GetV1ComputeProviderInstanceIdResponse200SshType0,
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
        if isinstance(self.ssh, GetV1ComputeProviderInstanceIdResponse200SshType0):
            ssh = self.ssh.to_dict()
        else:
            ssh = self.ssh

        created_at: None | str
        created_at = self.created_at

        managed = self.managed

        started_at: None | str
        started_at = self.started_at

        ended_at: None | str
        ended_at = self.ended_at

        timeline = []
        for timeline_item_data in self.timeline:
            timeline_item = timeline_item_data.to_dict()
            timeline.append(timeline_item)

        cost = self.cost.to_dict()

        charges = self.charges.to_dict()

        warnings: list[str] | Unset = UNSET
        if not isinstance(self.warnings, Unset):
            warnings = self.warnings

        end_reason = self.end_reason

        idle_stop: dict[str, Any] | Unset = UNSET
        if not isinstance(self.idle_stop, Unset):
            idle_stop = self.idle_stop.to_dict()

        end_kind: str | Unset = UNSET
        if not isinstance(self.end_kind, Unset):
            end_kind = self.end_kind.value

        provider_view: dict[str, Any] | Unset = UNSET
        if not isinstance(self.provider_view, Unset):
            provider_view = self.provider_view.to_dict()

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
                "started_at": started_at,
                "ended_at": ended_at,
                "timeline": timeline,
                "cost": cost,
                "charges": charges,
            }
        )
        if warnings is not UNSET:
            field_dict["warnings"] = warnings
        if end_reason is not UNSET:
            field_dict["end_reason"] = end_reason
        if idle_stop is not UNSET:
            field_dict["idle_stop"] = idle_stop
        if end_kind is not UNSET:
            field_dict["end_kind"] = end_kind
        if provider_view is not UNSET:
            field_dict["provider_view"] = provider_view

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.get_v1_compute_provider_instance_id_response_200_charges import (
            GetV1ComputeProviderInstanceIdResponse200Charges,
        )
        from ..models.get_v1_compute_provider_instance_id_response_200_cost import (
            GetV1ComputeProviderInstanceIdResponse200Cost,
        )
        from ..models.get_v1_compute_provider_instance_id_response_200_idle_stop import (
            GetV1ComputeProviderInstanceIdResponse200IdleStop,
        )
        from ..models.get_v1_compute_provider_instance_id_response_200_provider_view import (
            GetV1ComputeProviderInstanceIdResponse200ProviderView,
        )
        from ..models.get_v1_compute_provider_instance_id_response_200_ssh_type_0 import (
            GetV1ComputeProviderInstanceIdResponse200SshType0,
        )
        from ..models.get_v1_compute_provider_instance_id_response_200_timeline_item import (
            GetV1ComputeProviderInstanceIdResponse200TimelineItem,
        )

        d = dict(src_dict)
        id = d.pop("id")

        provider = GetV1ComputeProviderInstanceIdResponse200Provider(d.pop("provider"))

        def _parse_name(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        name = _parse_name(d.pop("name"))

        status = GetV1ComputeProviderInstanceIdResponse200Status(d.pop("status"))

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

        def _parse_ssh(
            data: object,
        ) -> GetV1ComputeProviderInstanceIdResponse200SshType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                ssh_type_0 = (
                    GetV1ComputeProviderInstanceIdResponse200SshType0.from_dict(data)
                )

                return ssh_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(GetV1ComputeProviderInstanceIdResponse200SshType0 | None, data)

        ssh = _parse_ssh(d.pop("ssh"))

        def _parse_created_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        created_at = _parse_created_at(d.pop("created_at"))

        managed = d.pop("managed")

        def _parse_started_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        started_at = _parse_started_at(d.pop("started_at"))

        def _parse_ended_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        ended_at = _parse_ended_at(d.pop("ended_at"))

        timeline = []
        _timeline = d.pop("timeline")
        for timeline_item_data in _timeline:
            timeline_item = (
                GetV1ComputeProviderInstanceIdResponse200TimelineItem.from_dict(
                    timeline_item_data
                )
            )

            timeline.append(timeline_item)

        cost = GetV1ComputeProviderInstanceIdResponse200Cost.from_dict(d.pop("cost"))

        charges = GetV1ComputeProviderInstanceIdResponse200Charges.from_dict(
            d.pop("charges")
        )

        warnings = cast(list[str], d.pop("warnings", UNSET))

        end_reason = d.pop("end_reason", UNSET)

        _idle_stop = d.pop("idle_stop", UNSET)
        idle_stop: GetV1ComputeProviderInstanceIdResponse200IdleStop | Unset
        if isinstance(_idle_stop, Unset):
            idle_stop = UNSET
        else:
            idle_stop = GetV1ComputeProviderInstanceIdResponse200IdleStop.from_dict(
                _idle_stop
            )

        _end_kind = d.pop("end_kind", UNSET)
        end_kind: GetV1ComputeProviderInstanceIdResponse200EndKind | Unset
        if isinstance(_end_kind, Unset):
            end_kind = UNSET
        else:
            end_kind = GetV1ComputeProviderInstanceIdResponse200EndKind(_end_kind)

        _provider_view = d.pop("provider_view", UNSET)
        provider_view: GetV1ComputeProviderInstanceIdResponse200ProviderView | Unset
        if isinstance(_provider_view, Unset):
            provider_view = UNSET
        else:
            provider_view = (
                GetV1ComputeProviderInstanceIdResponse200ProviderView.from_dict(
                    _provider_view
                )
            )

        get_v1_compute_provider_instance_id_response_200 = cls(
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
            started_at=started_at,
            ended_at=ended_at,
            timeline=timeline,
            cost=cost,
            charges=charges,
            warnings=warnings,
            end_reason=end_reason,
            idle_stop=idle_stop,
            end_kind=end_kind,
            provider_view=provider_view,
        )

        get_v1_compute_provider_instance_id_response_200.additional_properties = d
        return get_v1_compute_provider_instance_id_response_200

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
