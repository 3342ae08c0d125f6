package io.queenkv.node.identity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DataDirStampTest {
    @TempDir
    Path dir;

    @Test
    void anEmptyDirIsStampedOnceAndTheStampIsKept() {
        DataDirStamp.Opened first = DataDirStamp.open(dir, "prod-kv", "n1", false);
        assertThat(first.fresh()).isTrue();
        assertThat(first.identity().clusterId()).isEqualTo("prod-kv");
        assertThat(first.identity().nodeId()).isEqualTo("n1");

        DataDirStamp.Opened again = DataDirStamp.open(dir, "prod-kv", "n1", false);
        assertThat(again.fresh()).isFalse();
        assertThat(again.identity()).isEqualTo(first.identity());
        // The cluster id may be left out once the dir carries it.
        assertThat(DataDirStamp.open(dir, null, "n1", false).identity()).isEqualTo(first.identity());
    }

    @Test
    void everyNewDataDirIsANewIncarnation() throws IOException {
        MemberIdentity a = DataDirStamp.open(Files.createDirectory(dir.resolve("a")), "c", "n1", false).identity();
        MemberIdentity b = DataDirStamp.open(Files.createDirectory(dir.resolve("b")), "c", "n1", false).identity();
        assertThat(a.incarnation()).isNotEqualTo(b.incarnation());
        assertThat(a.groupUuid()).as("the group derives from the cluster id alone").isEqualTo(b.groupUuid());
    }

    @Test
    void clustersWithDifferentIdsHaveDifferentGroups() {
        assertThat(new MemberIdentity("a", "n1", "x").groupUuid()).isNotEqualTo(new MemberIdentity("b", "n1", "x").groupUuid());
    }

    @Test
    void aDataDirOfAnotherClusterIsRefused() {
        DataDirStamp.open(dir, "cluster-a", "n1", false);
        assertThatThrownBy(() -> DataDirStamp.open(dir, "cluster-b", "n1", false))
                .isInstanceOf(IdentityException.class).hasMessageContaining("belongs to cluster cluster-a");
    }

    @Test
    void aDataDirOfAnotherMemberIsRefused() {
        DataDirStamp.open(dir, "c", "n1", false);
        assertThatThrownBy(() -> DataDirStamp.open(dir, "c", "n2", false))
                .isInstanceOf(IdentityException.class).hasMessageContaining("belongs to member n1");
    }

    @Test
    void aDirWithDataButNoStampIsRefused() throws IOException {
        Files.createDirectory(dir.resolve("02511d47-d67c-49a3-9011-abb3109a44c1"));
        assertThatThrownBy(() -> DataDirStamp.open(dir, "c", "n1", false))
                .isInstanceOf(IdentityException.class).hasMessageContaining("no queen-kv-member stamp");
        assertThat(dir.resolve(DataDirStamp.FILE_NAME)).doesNotExist();
    }

    @Test
    void aFreshVolumeAndAnInterruptedStampCountAsEmpty() throws IOException {
        Files.createDirectory(dir.resolve("lost+found"));
        Files.writeString(dir.resolve(DataDirStamp.FILE_NAME + ".tmp"), "format=1\nclust");
        assertThat(DataDirStamp.open(dir, "c", "n1", false).fresh()).isTrue();
    }

    @Test
    void aMultiNodeMemberNeedsAClusterIdAndALoneNodeGeneratesOne() throws IOException {
        assertThatThrownBy(() -> DataDirStamp.open(dir, null, "n1", false))
                .isInstanceOf(IdentityException.class).hasMessageContaining("QUEEN_KV_CLUSTER_ID is required");
        assertThat(dir.resolve(DataDirStamp.FILE_NAME)).doesNotExist();
        MemberIdentity lone = DataDirStamp.open(dir, null, "n1", true).identity();
        assertThat(lone.clusterId()).matches("[0-9a-f-]{36}");
    }

    @Test
    void anUnknownStampFormatIsRefusedNotGuessed() throws IOException {
        Files.writeString(dir.resolve(DataDirStamp.FILE_NAME), "format=2\nclusterId=c\nnodeId=n1\nincarnation=i\n");
        assertThatThrownBy(() -> DataDirStamp.open(dir, "c", "n1", false))
                .isInstanceOf(IdentityException.class).hasMessageContaining("stamp format 2");
    }
}
