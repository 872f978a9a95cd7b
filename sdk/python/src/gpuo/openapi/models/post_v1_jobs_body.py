from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.post_v1_jobs_body_providers_item import PostV1JobsBodyProvidersItem
from ..models.post_v1_jobs_body_spot_policy import PostV1JobsBodySpotPolicy
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.post_v1_jobs_body_env import PostV1JobsBodyEnv
    from ..models.post_v1_jobs_body_idle_stop import PostV1JobsBodyIdleStop
    from ..models.post_v1_jobs_body_retry import PostV1JobsBodyRetry


T = TypeVar("T", bound="PostV1JobsBody")


@_attrs_define
class PostV1JobsBody:
    """
    Attributes:
        gpu (str): a GPU type slug (GET /v1/gpus), or an alias naming one (`4090`, `l40s`)
        command (str):
        name (str | Unset):
        gpu_count (int | Unset):  Default: 1.
        template (str | Unset):
        docker_image (str | Unset):
        env (PostV1JobsBodyEnv | Unset): sealed at rest, given to the command, never returned
        providers (list[PostV1JobsBodyProvidersItem] | Unset): allowed providers; default every connected one (lambda
            only with a default SSH key)
        spot_policy (PostV1JobsBodySpotPolicy | Unset):  Default: PostV1JobsBodySpotPolicy.AUTO.
        max_price_per_hour (float | Unset):
        max_cost (float | Unset): the whole job: every attempt together
        max_duration_hours (float | Unset): per attempt, from its start
        retry (PostV1JobsBodyRetry | Unset):
        idle_stop (PostV1JobsBodyIdleStop | Unset): beyond the spec: stop (runpod) or terminate (vastai) the instance
            once every GPU reported utilization below the threshold for that long (the end is charged up to that moment, its
            record says why, and instance.idle_stopped is emitted). Not for lambda, which reports no GPU utilization.
    """

    gpu: str
    command: str
    name: str | Unset = UNSET
    gpu_count: int | Unset = 1
    template: str | Unset = UNSET
    docker_image: str | Unset = UNSET
    env: PostV1JobsBodyEnv | Unset = UNSET
    providers: list[PostV1JobsBodyProvidersItem] | Unset = UNSET
    spot_policy: PostV1JobsBodySpotPolicy | Unset = PostV1JobsBodySpotPolicy.AUTO
    max_price_per_hour: float | Unset = UNSET
    max_cost: float | Unset = UNSET
    max_duration_hours: float | Unset = UNSET
    retry: PostV1JobsBodyRetry | Unset = UNSET
    idle_stop: PostV1JobsBodyIdleStop | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        gpu = self.gpu

        command = self.command

        name = self.name

        gpu_count = self.gpu_count

        template = self.template

        docker_image = self.docker_image

        env: dict[str, Any] | Unset = UNSET
        if not isinstance(self.env, Unset):
            env = self.env.to_dict()

        providers: list[str] | Unset = UNSET
        if not isinstance(self.providers, Unset):
            providers = []
            for providers_item_data in self.providers:
                providers_item = providers_item_data.value
                providers.append(providers_item)

        spot_policy: str | Unset = UNSET
        if not isinstance(self.spot_policy, Unset):
            spot_policy = self.spot_policy.value

        max_price_per_hour = self.max_price_per_hour

        max_cost = self.max_cost

        max_duration_hours = self.max_duration_hours

        retry: dict[str, Any] | Unset = UNSET
        if not isinstance(self.retry, Unset):
            retry = self.retry.to_dict()

        idle_stop: dict[str, Any] | Unset = UNSET
        if not isinstance(self.idle_stop, Unset):
            idle_stop = self.idle_stop.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "gpu": gpu,
                "command": command,
            }
        )
        if name is not UNSET:
            field_dict["name"] = name
        if gpu_count is not UNSET:
            field_dict["gpu_count"] = gpu_count
        if template is not UNSET:
            field_dict["template"] = template
        if docker_image is not UNSET:
            field_dict["docker_image"] = docker_image
        if env is not UNSET:
            field_dict["env"] = env
        if providers is not UNSET:
            field_dict["providers"] = providers
        if spot_policy is not UNSET:
            field_dict["spot_policy"] = spot_policy
        if max_price_per_hour is not UNSET:
            field_dict["max_price_per_hour"] = max_price_per_hour
        if max_cost is not UNSET:
            field_dict["max_cost"] = max_cost
        if max_duration_hours is not UNSET:
            field_dict["max_duration_hours"] = max_duration_hours
        if retry is not UNSET:
            field_dict["retry"] = retry
        if idle_stop is not UNSET:
            field_dict["idle_stop"] = idle_stop

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.post_v1_jobs_body_env import PostV1JobsBodyEnv
        from ..models.post_v1_jobs_body_idle_stop import PostV1JobsBodyIdleStop
        from ..models.post_v1_jobs_body_retry import PostV1JobsBodyRetry

        d = dict(src_dict)
        gpu = d.pop("gpu")

        command = d.pop("command")

        name = d.pop("name", UNSET)

        gpu_count = d.pop("gpu_count", UNSET)

        template = d.pop("template", UNSET)

        docker_image = d.pop("docker_image", UNSET)

        _env = d.pop("env", UNSET)
        env: PostV1JobsBodyEnv | Unset
        if isinstance(_env, Unset):
            env = UNSET
        else:
            env = PostV1JobsBodyEnv.from_dict(_env)

        _providers = d.pop("providers", UNSET)
        providers: list[PostV1JobsBodyProvidersItem] | Unset = UNSET
        if _providers is not UNSET:
            providers = []
            for providers_item_data in _providers:
                providers_item = PostV1JobsBodyProvidersItem(providers_item_data)

                providers.append(providers_item)

        _spot_policy = d.pop("spot_policy", UNSET)
        spot_policy: PostV1JobsBodySpotPolicy | Unset
        if isinstance(_spot_policy, Unset):
            spot_policy = UNSET
        else:
            spot_policy = PostV1JobsBodySpotPolicy(_spot_policy)

        max_price_per_hour = d.pop("max_price_per_hour", UNSET)

        max_cost = d.pop("max_cost", UNSET)

        max_duration_hours = d.pop("max_duration_hours", UNSET)

        _retry = d.pop("retry", UNSET)
        retry: PostV1JobsBodyRetry | Unset
        if isinstance(_retry, Unset):
            retry = UNSET
        else:
            retry = PostV1JobsBodyRetry.from_dict(_retry)

        _idle_stop = d.pop("idle_stop", UNSET)
        idle_stop: PostV1JobsBodyIdleStop | Unset
        if isinstance(_idle_stop, Unset):
            idle_stop = UNSET
        else:
            idle_stop = PostV1JobsBodyIdleStop.from_dict(_idle_stop)

        post_v1_jobs_body = cls(
            gpu=gpu,
            command=command,
            name=name,
            gpu_count=gpu_count,
            template=template,
            docker_image=docker_image,
            env=env,
            providers=providers,
            spot_policy=spot_policy,
            max_price_per_hour=max_price_per_hour,
            max_cost=max_cost,
            max_duration_hours=max_duration_hours,
            retry=retry,
            idle_stop=idle_stop,
        )

        return post_v1_jobs_body
