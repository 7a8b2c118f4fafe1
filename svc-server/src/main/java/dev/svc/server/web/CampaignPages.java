package dev.svc.server.web;

import dev.svc.engines.EngineCatalog;
import dev.svc.server.settings.GlobalSettings;
import dev.svc.server.store.AgentStore;
import dev.svc.server.store.CampaignStore;
import dev.svc.server.store.EventStore;
import io.vertx.core.Vertx;
import dev.svc.core.domain.Benchmarks;
import dev.svc.core.domain.CampaignStatus;
import dev.svc.server.models.ModelCatalog;
import dev.svc.server.store.StoredCampaign;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** GET /campaigns (list), /campaigns/new (the creation wizard) and /campaigns/:id (progress, rows, live log). */
final class CampaignPages {

  static final List<String> CHIPS = Arrays.stream(CampaignStatus.values()).map(CampaignStatus::wireName).toList();

  private final Vertx vertx;
  private final AgentStore agents;
  private final CampaignStore campaigns;
  private final EventStore eventStore;
  private final GlobalSettings settings;
  private final PageRenderer renderer;
  private final CatalogModels models;
  private final EngineChoices engines;

  CampaignPages(Vertx vertx, AgentStore agents, CampaignStore campaigns, EventStore eventStore, GlobalSettings settings, EngineCatalog engines, PageRenderer renderer) {
    this.vertx = vertx;
    this.agents = agents;
    this.campaigns = campaigns;
    this.eventStore = eventStore;
    this.settings = settings;
    this.renderer = renderer;
    this.models = new CatalogModels(vertx, settings);
    this.engines = new EngineChoices(engines);
  }

  void list(RoutingContext ctx) {
    String status = CampaignStatus.parse(QueryParams.get(ctx, "status")).map(CampaignStatus::wireName).orElse("");
    Pager pager = Pager.of(ctx);
    campaigns.list(status.isEmpty() ? null : status, pager.limit(), pager.offset()).onSuccess(page -> {
      Map<String, Object> model = new HashMap<>();
      model.put("campaigns", page.items().stream().map(RunRows::campaign).toList());
      model.put("chips", StatusChips.of(CHIPS, status, "/campaigns"));
      model.put("status", status);
      model.put("pager", pager.model(page.total(), "/campaigns", Map.of("status", status)));
      renderer.render(ctx, 200, "campaigns", "campaigns", model);
    }).onFailure(ctx::fail);
  }

  void newForm(RoutingContext ctx) {
    Future.all(agents.all(), models.load()).onSuccess(all -> {
      List<Map<String, Object>> agents = EngineChoices.agents(all.resultAt(0));
      ModelCatalog.Listing listing = all.resultAt(1);
      Map<String, Object> model = new HashMap<>();
      model.put("agents", agents);
      model.put("engines", engines.forArch(agents.isEmpty() ? null : (String) agents.get(0).get("arch")));
      model.put("models", CatalogModels.rows(listing));
      model.put("model_problems", listing.problems());
      model.put("benchmarks", Benchmarks.all());
      model.put("compat_json", new JsonObject().put("format_verdicts", engines.formatVerdicts()).encode());
      renderer.render(ctx, 200, "campaign_new", "campaigns", model);
    }).onFailure(ctx::fail);
  }

  void detail(RoutingContext ctx) {
    String id = ctx.pathParam("id");
    campaigns.byId(id).compose(found -> {
      if (found.isEmpty()) {
        renderer.render(ctx, 404, "not_found", "campaigns", Map.of("what", "campaign " + id));
        return Future.succeededFuture();
      }
      StoredCampaign campaign = found.get();
      if (!RunRows.isLive(campaign.status())) {
        return stored(ctx, campaign);
      }
      return LogLines.fromEvents(eventStore, id).compose(log -> {
        if (log.lastStatus() != null && !RunRows.isLive(log.lastStatus())) {
          // it ended while we read: show it as ended, with its stored lines
          return campaigns.byId(id).compose(again -> stored(ctx, again.orElse(campaign)));
        }
        Map<String, Object> view = RunRows.campaign(campaign);
        if (log.lastStatus() != null) {
          view.put("status", log.lastStatus());
        }
        return render(ctx, view, log, true);
      });
    }).onFailure(ctx::fail);
  }

  private Future<Void> stored(RoutingContext ctx, StoredCampaign campaign) {
    return eventStore.lines(campaign.id(), 0, LogLines.LIMIT)
        .compose(rows -> render(ctx, RunRows.campaign(campaign), LogLines.stored(rows), false));
  }

  private Future<Void> render(RoutingContext ctx, Map<String, Object> campaign, LogLines log, boolean live) {
    return campaigns.tests((String) campaign.get("id")).map(tests -> {
      Map<String, Object> model = new HashMap<>();
      model.put("campaign", campaign);
      model.put("rows", tests.stream().map(RunRows::campaignRow).toList());
      model.put("lines", log.lines());
      model.put("live", live);
      model.put("last_event_id", log.lastEventId());
      renderer.render(ctx, 200, "campaign", "campaigns", model);
      return null;
    });
  }
}
