package dev.svc.agent.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Acceptance 6: the share lookup is confined to the mount root. A symlink pointing outside, '..'
 * segments and a glob hit outside are each refused with a clear error, and nothing is copied.
 */
class ShareLookupTest {

  @TempDir
  Path temp;

  private Path share;
  private Path outside;
  private Path storageDir;
  private ModelWorkflow workflow;
  private final List<String> log = new ArrayList<>();

  @BeforeEach
  void setUp() throws Exception {
    share = Files.createDirectories(temp.resolve("share"));
    outside = Files.createDirectories(temp.resolve("outside"));
    Files.writeString(outside.resolve("secret.gguf"), "not yours");
    Files.createDirectories(share.resolve("models/llama"));
    Files.writeString(share.resolve("models/llama/tiny.gguf"), "GGUF tiny");
    storageDir = temp.resolve("storage");
    workflow = new ModelWorkflow(new ModelStorage(storageDir), "nfs:/x", share, (source, point, lines) -> lines.accept("mounted"));
  }

  @Test
  void aSymlinkOnTheSharePointingOutsideIsRefusedAndNothingIsCopied() throws Exception {
    Files.createSymbolicLink(share.resolve("models/escape.gguf"), outside.resolve("secret.gguf"));
    assertThatThrownBy(() -> workflow.resolve("models/escape.gguf", log::add))
        .isInstanceOf(ModelLookupException.class)
        .hasMessageContaining("resolves to " + outside.toRealPath().resolve("secret.gguf"))
        .hasMessageContaining("outside the share mount root").hasMessageContaining("refused, nothing copied");
    assertNothingCopied();
  }

  @Test
  void aSymlinkedDirectoryPointingOutsideIsRefusedToo() throws Exception {
    Files.createSymbolicLink(share.resolve("models/elsewhere"), outside);
    assertThatThrownBy(() -> workflow.resolve("models/elsewhere/secret.gguf", log::add))
        .isInstanceOf(ModelLookupException.class).hasMessageContaining("outside the share mount root");
    assertNothingCopied();
  }

  @Test
  void aModelDirectoryHoldingASymlinkOutsideIsRefusedWhole() throws Exception {
    Files.createSymbolicLink(share.resolve("models/llama/weights.bin"), outside.resolve("secret.gguf"));
    assertThatThrownBy(() -> workflow.resolve("models/llama", log::add))
        .isInstanceOf(ModelLookupException.class)
        .hasMessageContaining("The model directory").hasMessageContaining("outside the share mount root");
    assertNothingCopied();
  }

  @Test
  void parentSegmentsAreRefusedBeforeAnythingIsRead() throws Exception {
    for (String path : List.of("../outside/secret.gguf", "models/../../outside/secret.gguf", "models/..",
        share + "/../outside/secret.gguf")) {
      assertThatThrownBy(() -> workflow.resolve(path, log::add)).as(path)
          .isInstanceOf(ModelLookupException.class).hasMessageContaining("'..' segment; refused");
    }
    assertNothingCopied();
  }

  @Test
  void aGlobHitOutsideTheRootIsRefusedAndNothingIsCopied() throws Exception {
    // the glob matches a good model and a link that leads out: the lookup is refused whole
    Files.createSymbolicLink(share.resolve("models/llama/zz.gguf"), outside.resolve("secret.gguf"));
    assertThatThrownBy(() -> workflow.resolve("models/*/*.gguf", log::add))
        .isInstanceOf(ModelLookupException.class)
        .hasMessageContaining("The glob models/*/*.gguf matches " + share.resolve("models/llama/zz.gguf"))
        .hasMessageContaining("outside the share mount root");
    assertNothingCopied();
  }

  @Test
  void aGlobThroughASymlinkedDirectoryOutsideIsRefused() throws Exception {
    Files.createSymbolicLink(share.resolve("more"), outside);
    assertThatThrownBy(() -> workflow.resolve("*/secret.gguf", log::add))
        .isInstanceOf(ModelLookupException.class).hasMessageContaining("outside the share mount root");
    assertNothingCopied();
  }

  @Test
  void aModelInsideTheShareIsCopiedWithProgressAndFoundLocallyTheNextTime() throws Exception {
    // a symlink inside the root to a file inside the root is fine
    Files.createSymbolicLink(share.resolve("latest.gguf"), share.resolve("models/llama/tiny.gguf"));
    ModelWorkflow.Resolved copied = workflow.resolve("latest.gguf", log::add);
    assertThat(copied.copied()).isTrue();
    assertThat(copied.local()).isEqualTo(storageDir.resolve("latest.gguf"));
    assertThat(Files.readString(copied.local())).isEqualTo("GGUF tiny");
    assertThat(log).contains("mounted").anyMatch(l -> l.startsWith("Copying model: 100%"));

    ModelWorkflow.Resolved again = workflow.resolve("latest.gguf", log::add);
    assertThat(again.copied()).isFalse();
    assertThat(again.local()).isEqualTo(storageDir.resolve("latest.gguf"));
  }

  @Test
  void aDirectoryModelIsCopiedRecursivelyAndAGlobPicksItsSortedFirstHit() throws Exception {
    Files.createDirectories(share.resolve("models/qwen/sub"));
    Files.writeString(share.resolve("models/qwen/config.json"), "{}");
    Files.writeString(share.resolve("models/qwen/sub/model.safetensors"), "weights");
    ModelWorkflow.Resolved resolved = workflow.resolve(share.resolve("models/q*").toString(), log::add);
    assertThat(resolved.local()).isEqualTo(storageDir.resolve("models/qwen"));
    assertThat(Files.readString(resolved.local().resolve("sub/model.safetensors"))).isEqualTo("weights");
    assertThat(Files.readString(resolved.local().resolve("config.json"))).isEqualTo("{}");
    try (var entries = Files.list(storageDir)) {
      assertThat(entries.map(p -> p.getFileName().toString())).containsExactly("models");
    }
  }

  @Test
  void aModelMissingEverywhereIsAClearError() {
    assertThatThrownBy(() -> workflow.resolve("nothing.gguf", log::add))
        .isInstanceOf(ModelLookupException.class).hasMessage("Model nothing.gguf not found on the share " + share);
    ModelWorkflow noShare = new ModelWorkflow(new ModelStorage(storageDir), "", null, (s, p, l) -> { });
    assertThatThrownBy(() -> noShare.resolve("nothing.gguf", log::add))
        .hasMessageContaining("is not in the model storage").hasMessageContaining("no model share is configured");
  }

  @Test
  void anUnfinishedCopyLeftByACrashIsRemovedAndNeverTakenForAModel() throws Exception {
    Path partial = Files.createDirectories(storageDir.resolve(ModelStorage.PARTIAL_PREFIX + "dead/models/llama"));
    Files.writeString(partial.resolve("tiny.gguf"), "GGUF ti");
    ModelStorage storage = new ModelStorage(storageDir);
    assertThat(storage.models()).isEmpty();
    ModelWorkflow.Resolved resolved = workflow.resolve("models/llama/tiny.gguf", log::add);
    assertThat(resolved.copied()).isTrue();
    assertThat(storageDir.resolve(ModelStorage.PARTIAL_PREFIX + "dead")).doesNotExist();
    assertThat(log).anyMatch(l -> l.startsWith("Model storage: removing the unfinished copy"));
    storage.delete(resolved.local());
    assertThat(storageDir).isEmptyDirectory();
  }

  private void assertNothingCopied() throws Exception {
    if (Files.exists(storageDir)) {
      try (var walk = Files.walk(storageDir)) {
        assertThat(walk.filter(Files::isRegularFile)).as("files copied into storage").isEmpty();
      }
    }
    assertThat(log).noneMatch(l -> l.startsWith("Copying model"));
  }
}
