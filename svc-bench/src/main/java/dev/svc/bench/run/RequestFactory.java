package dev.svc.bench.run;

import dev.svc.bench.client.RequestSpec;

/** Builds the streamed request an engine understands for a prompt and a token budget. */
@FunctionalInterface
public interface RequestFactory {

  RequestSpec request(String prompt, int maxTokens);
}
