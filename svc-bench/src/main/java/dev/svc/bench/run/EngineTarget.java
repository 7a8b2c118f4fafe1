package dev.svc.bench.run;

import dev.svc.engines.codec.EngineCodec;

/** A healthy engine as the benchmarks see it: where it listens, what it calls the model, how it speaks. */
public record EngineTarget(String host, int port, String modelName, EngineCodec codec, String image) {
}
