package dev.svc.perf.fleet;

import dev.svc.core.protocol.BadMessage;
import dev.svc.core.protocol.Fields;
import io.vertx.core.json.JsonObject;
import java.util.regex.Pattern;

/**
 * What the fleet simulator and the benchmarks read of the server's answer to a create (a quick
 * test, a test agent, a campaign): the new resource's {@code id}, which they put into request paths.
 */
public record CreatedResource(String id) {

  /** What an id may be: it goes into request paths, so no '/', '%' or '..'. */
  private static final Pattern ID = Pattern.compile("[A-Za-z0-9_-]{1,64}");

  public static CreatedResource parse(JsonObject body) {
    String id = Fields.requireString(body, "id");
    if (!ID.matcher(id).matches()) {
      throw new BadMessage("Field 'id' must be 1 to 64 characters of A-Z, a-z, 0-9, '_' and '-'");
    }
    return new CreatedResource(id);
  }
}
