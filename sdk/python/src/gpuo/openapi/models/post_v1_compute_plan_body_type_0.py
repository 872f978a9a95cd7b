from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.post_v1_compute_plan_body_type_0_provider import (
    PostV1ComputePlanBodyType0Provider,
)
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.post_v1_compute_plan_body_type_0_idle_stop import (
        PostV1ComputePlanBodyType0IdleStop,
    )


T = TypeVar("T", bound="PostV1ComputePlanBodyType0")


@_attrs_define
class PostV1ComputePlanBodyType0:
    """
    Attributes:
        provider (PostV1ComputePlanBodyType0Provider):
        gpu_type (str): a GPU type slug (GET /v1/gpus), or an alias naming one (`4090`, `l40s`)
        gpu_count (int | Unset):  Default: 1.
        docker_image (str | Unset):
        spot (bool | Unset):  Default: False.
        name (str | Unset):
        volume_gb (int | Unset):
        disk_gb (int | Unset):
        region (str | Unset):
        ssh_key_name (str | Unset):
        onstart_cmd (str | Unset): a startup command: vastai runs it as the instance's `onstart`, runpod as the
            container's command (in place of the image's default command); lambda takes none (422 unsupported_operation)
        idle_stop (PostV1ComputePlanBodyType0IdleStop | Unset): beyond the spec: stop (runpod) or terminate (vastai) the
            instance once every GPU reported utilization below the threshold for that long (the end is charged up to that
            moment, its record says why, and instance.idle_stopped is emitted). Not for lambda, which reports no GPU
            utilization.
    """

    provider: PostV1ComputePlanBodyType0Provider
    gpu_type: str
    gpu_count: int | Unset = 1
    docker_image: str | Unset = UNSET
    spot: bool | Unset = False
    name: str | Unset = UNSET
    volume_gb: int | Unset = UNSET
    disk_gb: int | Unset = UNSET
    region: str | Unset = UNSET
    ssh_key_name: str | Unset = UNSET
    onstart_cmd: str | Unset = UNSET
    idle_stop: PostV1ComputePlanBodyType0IdleStop | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        provider = self.provider.value

        gpu_type = self.gpu_type

        gpu_count = self.gpu_count

        docker_image = self.docker_image

        spot = self.spot

        name = self.name

        volume_gb = self.volume_gb

        disk_gb = self.disk_gb

        region = self.region

        ssh_key_name = self.ssh_key_name

        onstart_cmd = self.onstart_cmd

        idle_stop: dict[str, Any] | Unset = UNSET
        if not isinstance(self.idle_stop, Unset):
            idle_stop = self.idle_stop.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "provider": provider,
                "gpu_type": gpu_type,
            }
        )
        if gpu_count is not UNSET:
            field_dict["gpu_count"] = gpu_count
        if docker_image is not UNSET:
            field_dict["docker_image"] = docker_image
        if spot is not UNSET:
            field_dict["spot"] = spot
        if name is not UNSET:
            field_dict["name"] = name
        if volume_gb is not UNSET:
            field_dict["volume_gb"] = volume_gb
        if disk_gb is not UNSET:
            field_dict["disk_gb"] = disk_gb
        if region is not UNSET:
            field_dict["region"] = region
        if ssh_key_name is not UNSET:
            field_dict["ssh_key_name"] = ssh_key_name
        if onstart_cmd is not UNSET:
            field_dict["onstart_cmd"] = onstart_cmd
        if idle_stop is not UNSET:
            field_dict["idle_stop"] = idle_stop

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.post_v1_compute_plan_body_type_0_idle_stop import (
            PostV1ComputePlanBodyType0IdleStop,
        )

        d = dict(src_dict)
        provider = PostV1ComputePlanBodyType0Provider(d.pop("provider"))

        gpu_type = d.pop("gpu_type")

        gpu_count = d.pop("gpu_count", UNSET)

        docker_image = d.pop("docker_image", UNSET)

        spot = d.pop("spot", UNSET)

        name = d.pop("name", UNSET)

        volume_gb = d.pop("volume_gb", UNSET)

        disk_gb = d.pop("disk_gb", UNSET)

        region = d.pop("region", UNSET)

        ssh_key_name = d.pop("ssh_key_name", UNSET)

        onstart_cmd = d.pop("onstart_cmd", UNSET)

        _idle_stop = d.pop("idle_stop", UNSET)
        idle_stop: PostV1ComputePlanBodyType0IdleStop | Unset
        if isinstance(_idle_stop, Unset):
            idle_stop = UNSET
        else:
            idle_stop = PostV1ComputePlanBodyType0IdleStop.from_dict(_idle_stop)

        post_v1_compute_plan_body_type_0 = cls(
            provider=provider,
            gpu_type=gpu_type,
            gpu_count=gpu_count,
            docker_image=docker_image,
            spot=spot,
            name=name,
            volume_gb=volume_gb,
            disk_gb=disk_gb,
            region=region,
            ssh_key_name=ssh_key_name,
            onstart_cmd=onstart_cmd,
            idle_stop=idle_stop,
        )

        return post_v1_compute_plan_body_type_0
