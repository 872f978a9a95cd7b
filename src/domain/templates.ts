/**
 * The curated launch-template catalog: real public images, icon names from the Lucide set.
 * `slug` is what schedules name in `template`.
 */
export const TEMPLATE_CATEGORIES = ['ml-training', 'inference', 'creative', 'general'] as const;
export type TemplateCategory = (typeof TEMPLATE_CATEGORIES)[number];

export interface Template {
  slug: string;
  name: string;
  description: string;
  icon: string;
  category: TemplateCategory;
  docker_image: string;
  min_vram_gb: number;
  default_ports: number[];
}

export const TEMPLATES: readonly Template[] = Object.freeze([
  {
    slug: 'pytorch',
    name: 'PyTorch 2.5 + CUDA 12.4',
    description: 'Official PyTorch runtime image with CUDA and cuDNN for training and fine-tuning.',
    icon: 'flame',
    category: 'ml-training',
    docker_image: 'pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime',
    min_vram_gb: 8,
    default_ports: [22, 8888],
  },
  {
    slug: 'tensorflow',
    name: 'TensorFlow 2 (GPU)',
    description: 'Official TensorFlow image with GPU support and Jupyter.',
    icon: 'brain-circuit',
    category: 'ml-training',
    docker_image: 'tensorflow/tensorflow:2.17.0-gpu-jupyter',
    min_vram_gb: 8,
    default_ports: [22, 8888],
  },
  {
    slug: 'axolotl',
    name: 'Axolotl fine-tuning',
    description: 'Axolotl for LoRA and full fine-tuning of open LLMs.',
    icon: 'graduation-cap',
    category: 'ml-training',
    docker_image: 'axolotlai/axolotl:main-latest',
    min_vram_gb: 24,
    default_ports: [22, 8888],
  },
  {
    slug: 'vllm',
    name: 'vLLM OpenAI-compatible server',
    description: 'High-throughput LLM serving with an OpenAI-compatible HTTP API.',
    icon: 'zap',
    category: 'inference',
    docker_image: 'vllm/vllm-openai:v0.6.4',
    min_vram_gb: 16,
    default_ports: [22, 8000],
  },
  {
    slug: 'tgi',
    name: 'Text Generation Inference',
    description: "Hugging Face's production LLM server.",
    icon: 'message-square-text',
    category: 'inference',
    docker_image: 'ghcr.io/huggingface/text-generation-inference:2.4.0',
    min_vram_gb: 16,
    default_ports: [22, 80],
  },
  {
    slug: 'ollama',
    name: 'Ollama',
    description: 'Run open models locally with a simple REST API.',
    icon: 'bot',
    category: 'inference',
    docker_image: 'ollama/ollama:0.4.7',
    min_vram_gb: 8,
    default_ports: [22, 11434],
  },
  {
    slug: 'comfyui',
    name: 'ComfyUI',
    description: 'Node-based Stable Diffusion and Flux workflow editor.',
    icon: 'workflow',
    category: 'creative',
    docker_image: 'yanwk/comfyui-boot:cu124-slim',
    min_vram_gb: 12,
    default_ports: [22, 8188],
  },
  {
    slug: 'stable-diffusion-webui',
    name: 'Stable Diffusion WebUI (AUTOMATIC1111)',
    description: 'The classic browser UI for Stable Diffusion image generation.',
    icon: 'image',
    category: 'creative',
    docker_image: 'universonic/stable-diffusion-webui:latest',
    min_vram_gb: 8,
    default_ports: [22, 8080],
  },
  {
    slug: 'jupyter-pytorch',
    name: 'Jupyter (PyTorch notebook)',
    description: 'JupyterLab with PyTorch and CUDA from the Jupyter Docker Stacks.',
    icon: 'notebook-pen',
    category: 'general',
    docker_image: 'quay.io/jupyter/pytorch-notebook:cuda12-latest',
    min_vram_gb: 4,
    default_ports: [22, 8888],
  },
  {
    slug: 'cuda-base',
    name: 'CUDA 12.4 base (Ubuntu 22.04)',
    description: 'Bare NVIDIA CUDA runtime on Ubuntu for your own tooling.',
    icon: 'cpu',
    category: 'general',
    docker_image: 'nvidia/cuda:12.4.1-runtime-ubuntu22.04',
    min_vram_gb: 4,
    default_ports: [22],
  },
  {
    slug: 'code-server',
    name: 'VS Code in the browser',
    description: 'code-server for a remote development environment on a GPU box.',
    icon: 'code',
    category: 'general',
    docker_image: 'codercom/code-server:4.95.3',
    min_vram_gb: 4,
    default_ports: [22, 8080],
  },
]);
