from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.post_v1_compute_provider_instance_id_start_response_202_provider import (
    PostV1ComputeProviderInstanceIdStartResponse202Provider,
)
from ..models.post_v1_compute_provider_instance_id_start_response_202_status import (
    PostV1ComputeProviderInstanceIdStartResponse202Status,
)
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.post_v1_compute_provider_instance_id_start_response_202_idle_stop import (
        PostV1ComputeProviderInstanceIdStartResponse202IdleStop,
    )
    from ..models.post_v1_compute_provider_instance_id_start_response_202_ssh_type_0 import (
        PostV1ComputeProviderInstanceIdStartResponse202SshType0,
    )


T = TypeVar("T", bound="PostV1ComputeProviderInstanceIdStartResponse202")


@_attrs_define
class PostV1ComputeProviderInstanceIdStartResponse202:
    """
    Attributes:
        id (str): the provider's own instance id (used in paths)
        provider (PostV1ComputeProviderInstanceIdStartResponse202Provider):
        name (None | str):
        status (PostV1ComputeProviderInstanceIdStartResponse202Status):
        provider_status (None | str):
        gpu_type (None | str):
        gpu_count (int):
        price_per_hour (float | None): dollars per hour for the whole instance
        spot (bool):
        region (None | str):
        docker_image (None | str):
        public_ip (None | str):
        ssh (None | PostV1ComputeProviderInstanceIdStartResponse202SshType0):
        created_at (None | str): ISO 8601 UTC timestamp
        managed (bool): true for instances launched through this service
        warnings (list[str] | Unset):
        end_reason (str | Unset): why the service itself stopped or ended the instance, when it did
        idle_stop (PostV1ComputeProviderInstanceIdStartResponse202IdleStop | Unset): the idle-stop rule the instance was
            launched with (beyond the spec); absent: none
    """

    id: str
    provider: PostV1ComputeProviderInstanceIdStartResponse202Provider
    name: None | str
    status: PostV1ComputeProviderInstanceIdStartResponse202Status
    provider_status: None | str
    gpu_type: None | str
    gpu_count: int
    price_per_hour: float | None
    spot: bool
    region: None | str
    docker_image: None | str
    public_ip: None | str
    ssh: None | PostV1ComputeProviderInstanceIdStartResponse202SshType0
    created_at: None | str
    managed: bool
    warnings: list[str] | Unset = UNSET
    end_reason: str | Unset = UNSET
    idle_stop: PostV1ComputeProviderInstanceIdStartResponse202IdleStop | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.post_v1_compute_provider_instance_id_start_response_202_ssh_type_0 import (
            PostV1ComputeProviderInstanceIdStartResponse202SshType0,
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
        if isinstance(
            self.ssh, PostV1ComputeProviderInstanceIdStartResponse202SshType0
        ):
            ssh = self.ssh.to_dict()
        else:
            ssh = self.ssh

        created_at: None | str
        created_at = self.created_at

        managed = self.managed

        warnings: list[str] | Unset = UNSET
        if not isinstance(self.warnings, Unset):
            warnings = self.warnings

        end_reason = self.end_reason

        idle_stop: dict[str, Any] | Unset = UNSET
        if not isinstance(self.idle_stop, Unset):
            idle_stop = self.idle_stop.to_dict()

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
            }
        )
        if warnings is not UNSET:
            field_dict["warnings"] = warnings
        if end_reason is not UNSET:
            field_dict["end_reason"] = end_reason
        if idle_stop is not UNSET:
            field_dict["idle_stop"] = idle_stop

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.post_v1_compute_provider_instance_id_start_response_202_idle_stop import (
            PostV1ComputeProviderInstanceIdStartResponse202IdleStop,
        )
        from ..models.post_v1_compute_provider_instance_id_start_response_202_ssh_type_0 import (
            PostV1ComputeProviderInstanceIdStartResponse202SshType0,
        )

        d = dict(src_dict)
        id = d.pop("id")

        provider = PostV1ComputeProviderInstanceIdStartResponse202Provider(
            d.pop("provider")
        )

        def _parse_name(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        name = _parse_name(d.pop("name"))

        status = PostV1ComputeProviderInstanceIdStartResponse202Status(d.pop("status"))

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
        ) -> None | PostV1ComputeProviderInstanceIdStartResponse202SshType0:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                ssh_type_0 = (
                    PostV1ComputeProviderInstanceIdStartResponse202SshType0.from_dict(
                        data
                    )
                )

                return ssh_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(
                None | PostV1ComputeProviderInstanceIdStartResponse202SshType0, data
            )

        ssh = _parse_ssh(d.pop("ssh"))

        def _parse_created_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        created_at = _parse_created_at(d.pop("created_at"))

        managed = d.pop("managed")

        warnings = cast(list[str], d.pop("warnings", UNSET))

        end_reason = d.pop("end_reason", UNSET)

        _idle_stop = d.pop("idle_stop", UNSET)
        idle_stop: PostV1ComputeProviderInstanceIdStartResponse202IdleStop | Unset
        if isinstance(_idle_stop, Unset):
            idle_stop = UNSET
        else:
            idle_stop = (
                PostV1ComputeProviderInstanceIdStartResponse202IdleStop.from_dict(
                    _idle_stop
                )
            )

        post_v1_compute_provider_instance_id_start_response_202 = cls(
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
            warnings=warnings,
            end_reason=end_reason,
            idle_stop=idle_stop,
        )

        post_v1_compute_provider_instance_id_start_response_202.additional_properties = d
        return post_v1_compute_provider_instance_id_start_response_202

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
