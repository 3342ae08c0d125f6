package io.queenkv.operator;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.policy.v1.EvictionBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.ErrorStatusUpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.MaxReconciliationInterval;
import io.javaoperatorsdk.operator.api.reconciler.PrimaryUpdateAndCacheUtils;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.Mappers;
import io.queenkv.operator.crd.ClusterPhase;
import io.queenkv.operator.crd.KvSettings;
import io.queenkv.operator.crd.MemberStatus;
import io.queenkv.operator.crd.OperationType;
import io.queenkv.operator.crd.PendingOperation;
import io.queenkv.operator.crd.QueenKvCluster;
import io.queenkv.operator.crd.QueenKvClusterStatus;
import io.queenkv.operator.model.BackupModel;
import io.queenkv.operator.model.ConfigMapModel;
import io.queenkv.operator.model.DesiredResources;
import io.queenkv.operator.model.Labels;
import io.queenkv.operator.model.Model;
import io.queenkv.operator.model.Names;
import io.queenkv.operator.model.NodeEnv;
import io.queenkv.operator.model.Peers;
import io.queenkv.operator.nodes.ClusterView;
import io.queenkv.operator.nodes.NodeAdmin;
import io.queenkv.operator.nodes.NodeAdminException;

/**
 * Reconciles a {@link QueenKvCluster} in small, named, idempotent steps, each gated on what status
 * records:
 * <ol>
 *   <li><b>bootstrap</b>: record {@code status.bootstrapReplicas} (the fixed initial peer list) before
 *       anything is created;</li>
 *   <li><b>TLS</b>: the cluster CA and node certificate Secrets, or the cert-manager Certificate
 *       ({@link TlsMaterial}), before any pod that mounts them;</li>
 *   <li><b>observe</b>: the pods and each node's view of the group through {@link NodeAdmin};</li>
 *   <li><b>apply</b>: the ConfigMap, both Services, the StatefulSet (sized from status, one ordinal at a
 *       time, never below the highest member's ordinal + 1, never shrunk while no leader is visible) and
 *       the PodDisruptionBudget;</li>
 *   <li><b>act</b>: resume the recorded {@code pendingOperation}, or pick the next one (settings, scale up
 *       by one, scale down by one, roll one pod) and only <em>record</em> it: the next reconcile acts, so
 *       an operator restarted mid-way finds the intent in status and resumes it;</li>
 *   <li><b>status</b>: phase, members, leader, settings in force, conditions, and a reschedule only
 *       while work remains or a member is not ready.</li>
 * </ol>
 */
// A leader change makes no Kubernetes event; a periodic look keeps status.leader and members true.
// Generation-aware processing would drop the control annotations; SpecOrControlsChanged does its work and lets them through.
@ControllerConfiguration(name = QueenKvReconciler.NAME,
        generationAwareEventProcessing = false,
        informer = @io.javaoperatorsdk.operator.api.config.informer.Informer(onUpdateFilter = SpecOrControlsChanged.class),
        maxReconciliationInterval = @MaxReconciliationInterval(interval = 60, timeUnit = TimeUnit.SECONDS))
public class QueenKvReconciler implements Reconciler<QueenKvCluster> {
    public static final String NAME = "queenkvcluster";

    /** {@code pendingOperation.step} values: the last step done. */
    public static final String RECORDED = "Recorded";
    public static final String LEADERSHIP_MOVED = "LeadershipMoved";
    public static final String MEMBER_ADDED = "MemberAdded";
    public static final String MEMBER_REMOVED = "MemberRemoved";
    public static final String POD_DELETED = "PodDeleted";

    /** Condition reasons. */
    public static final String REASON_QUORUM = "QuorumAvailable";
    public static final String REASON_NO_QUORUM = "NoQuorum";
    public static final String REASON_CREATING = "Creating";
    public static final String REASON_CREATED = "Created";
    public static final String REASON_PAUSED = "ReconciliationPaused";
    public static final String REASON_SCALING_UP = "ScalingUp";
    public static final String REASON_SCALING_DOWN = "ScalingDown";
    public static final String REASON_ROLLING = "Rolling";
    public static final String REASON_SETTINGS = "ApplyingSettings";
    public static final String REASON_WAITING = "Waiting";
    public static final String REASON_RECONCILED = "Reconciled";
    public static final String REASON_HEALTHY = "AllMembersReady";
    public static final String REASON_MEMBER_NOT_READY = "MemberNotReady";
    public static final String REASON_MEMBER_READMITTING = "MemberReadmitting";
    public static final String REASON_NO_LEADER = "NoLeader";
    public static final String REASON_WOULD_LOSE_QUORUM = "ScaleDownWouldLoseQuorum";
    public static final String REASON_STUCK = "StepStuck";
    public static final String REASON_RECONCILE_FAILED = "ReconcileFailed";
    /** Degraded reasons that need a person: Stalled (kstatus) is True for these. */
    static final Set<String> STALLED_REASONS = Set.of(REASON_STUCK, REASON_RECONCILE_FAILED, REASON_WOULD_LOSE_QUORUM);

    private static final Logger LOG = LoggerFactory.getLogger(QueenKvReconciler.class);

    /**
     * @param poll       how soon to look again while waiting for a pod, a member or a catch-up
     * @param step       how soon to go on after a step was recorded or done
     * @param stuckAfter how long an operation (or the creation) may take before Degraded says it is stuck
     */
    public record Timing(Duration poll, Duration step, Duration stuckAfter) {
        public static Timing production() {
            return new Timing(Duration.ofSeconds(3), Duration.ofMillis(200), Duration.ofMinutes(10));
        }
    }

    private final NodeAdmin nodes;
    private final Timing timing;
    private final Clock clock;
    private final AtomicLong reconciles = new AtomicLong();
    private final TlsMaterial tls;
    private final ClusterEvents events;

    public QueenKvReconciler(NodeAdmin nodes) {
        this(nodes, Timing.production(), Clock.systemUTC());
    }

    public QueenKvReconciler(NodeAdmin nodes, Timing timing, Clock clock) {
        this.nodes = nodes;
        this.timing = timing;
        this.clock = clock;
        this.tls = new TlsMaterial(clock);
        this.events = new ClusterEvents(clock);
    }

    /** How many times {@link #reconcile} ran (tests check there is no hot loop). */
    public long reconcileCount() { return reconciles.get(); }

    /** Pod events (readiness, restarts) and StatefulSet events trigger a reconcile of their cluster. */
    @Override
    public List<EventSource<?, QueenKvCluster>> prepareEventSources(EventSourceContext<QueenKvCluster> context) {
        InformerEventSourceConfiguration<Pod> pods = InformerEventSourceConfiguration.from(Pod.class, QueenKvCluster.class)
                .withName("pods")
                .withLabelSelector(Labels.NAME + "=" + Labels.APP)
                .withSecondaryToPrimaryMapper(p -> {
                    Map<String, String> labels = p.getMetadata().getLabels();
                    String cluster = labels == null ? null : labels.get(Labels.INSTANCE);
                    return cluster == null ? Set.of() : Set.of(new ResourceID(cluster, p.getMetadata().getNamespace()));
                })
                .build();
        InformerEventSourceConfiguration<StatefulSet> statefulSets = InformerEventSourceConfiguration
                .from(StatefulSet.class, QueenKvCluster.class)
                .withName("statefulsets")
                .withLabelSelector(Labels.MANAGED_BY + "=" + Labels.OPERATOR)
                .withSecondaryToPrimaryMapper(Mappers.fromOwnerReferences(QueenKvCluster.class))
                .build();
        return List.of(new InformerEventSource<>(pods, context), new InformerEventSource<>(statefulSets, context));
    }

    @Override
    public UpdateControl<QueenKvCluster> reconcile(QueenKvCluster c, Context<QueenKvCluster> context) {
        reconciles.incrementAndGet();
        KubernetesClient client = context.getClient();
        QueenKvClusterStatus before = c.getStatus();
        QueenKvClusterStatus s = before == null ? new QueenKvClusterStatus() : copy(before);

        // 1. The initial peer list is fixed before anything is created.
        if (s.getBootstrapReplicas() == null) {
            s.setBootstrapReplicas(Model.replicas(Model.spec(c)));
            s.setReplicas(s.getBootstrapReplicas());
            s.setPhase(ClusterPhase.Creating);
            s.setSelector(Labels.selectorString(Model.name(c)));
            Instant now = clock.instant();
            Long gen = c.getMetadata().getGeneration();
            Conditions.set(s.getConditions(), QueenKvClusterStatus.AVAILABLE, false, REASON_CREATING, "the group is being created", gen, now);
            Conditions.set(s.getConditions(), QueenKvClusterStatus.PROGRESSING, true, REASON_CREATING,
                    "creating " + s.getBootstrapReplicas() + " members", gen, now);
            Conditions.set(s.getConditions(), QueenKvClusterStatus.DEGRADED, false, REASON_CREATING, "the group is being created", gen, now);
            Conditions.deriveKstatus(s.getConditions(), STALLED_REASONS, gen, now);
            saveStatus(c, s, context);
            return UpdateControl.<QueenKvCluster>noUpdate().rescheduleAfter(timing.step());
        }
        QueenKvCluster view = withStatus(c, s); // the model reads bootstrapReplicas from status

        // 2. TLS material, then what the pods and the nodes say (before the StatefulSet is sized: the group bounds its size).
        boolean ssa = context.getControllerConfiguration().getConfigurationService().ssaBasedCreateUpdateMatchForDependentResources();
        ResourceApplier applier = new ResourceApplier(client, ssa);
        boolean paused = Model.paused(c); // nothing below changes anything then; status stays true
        if (!paused) tls.ensure(view, client, applier);
        Observed o = Observed.of(client, nodes, view);

        Outcome outcome;
        if (paused) {
            outcome = Outcome.paused();
        } else {
            // 3. The owned resources, the StatefulSet at the size the recorded operation calls for, bounded by the group.
            StatefulSet current = client.apps().statefulSets().inNamespace(Model.namespace(c)).withName(Names.statefulSet(Model.name(c))).get();
            DesiredResources desired = DesiredResources.of(view, safeStatefulSetReplicas(statefulSetReplicas(s), o,
                    current == null || current.getSpec() == null ? null : current.getSpec().getReplicas()));
            for (HasMetadata r : desired.all()) applier.apply(r);
            applyBackups(view, client, applier);
            deleteClaimsOfNoMember(view, s, o, client, desired.statefulSet().getSpec().getReplicas());

            // 4. One step: resume the recorded operation, or record the next one.
            try {
                outcome = s.getPendingOperation() != null ? resume(view, s, o, client, desired.podTemplateHash())
                        : next(view, s, o, desired.podTemplateHash());
            } catch (NodeAdminException e) {
                LOG.info("{}/{}: admin call failed: {}", Model.namespace(c), Model.name(c), e.getMessage());
                outcome = Outcome.waiting("admin call failed, retrying: " + e.getMessage());
            }
        }

        // 5. An event for a step taken or refused, then status.
        if (outcome.degradedReason() != null) events.record(client, c, ClusterEvents.Type.Warning, outcome.degradedReason(), outcome.message());
        else if (outcome.soon()) events.record(client, c, ClusterEvents.Type.Normal, outcome.progressReason(), outcome.message());
        boolean bootstrapped = s.getBootstrappedAt() != null;
        writeStatus(view, s, o, outcome);
        if (!Objects.equals(json(before), json(s))) saveStatus(c, s, context);
        if (!paused && !bootstrapped && s.getBootstrappedAt() != null) {
            // Recorded first, then every container started from now on reads QUEEN_KV_INITIAL_CLUSTER_STATE=existing.
            applier.apply(ConfigMapModel.build(view));
            LOG.info("{}/{}: bootstrap complete; nodes start with {}=existing from now on", Model.namespace(c), Model.name(c),
                    NodeEnv.INITIAL_CLUSTER_STATE);
            events.record(client, c, ClusterEvents.Type.Normal, REASON_CREATED, s.getReplicas() + " members created; new pods join as "
                    + NodeEnv.INITIAL_CLUSTER_STATE + "=existing");
        }
        UpdateControl<QueenKvCluster> control = UpdateControl.noUpdate();
        if (outcome.busy() || s.getPendingOperation() != null || s.getPhase() == ClusterPhase.Creating
                || !o.readyMembers().containsAll(o.members()) || o.leaderView() == null)
            control.rescheduleAfter(outcome.soon() ? timing.step() : timing.poll());
        return control;
    }

    @Override
    public ErrorStatusUpdateControl<QueenKvCluster> updateErrorStatus(QueenKvCluster c, Context<QueenKvCluster> context, Exception e) {
        QueenKvClusterStatus s = c.getStatus() == null ? new QueenKvClusterStatus() : c.getStatus();
        Conditions.set(s.getConditions(), QueenKvClusterStatus.DEGRADED, true, REASON_RECONCILE_FAILED,
                String.valueOf(e.getMessage()), c.getMetadata().getGeneration(), clock.instant());
        events.record(context.getClient(), c, ClusterEvents.Type.Warning, REASON_RECONCILE_FAILED, String.valueOf(e.getMessage()));
        if (Conditions.find(s.getConditions(), QueenKvClusterStatus.AVAILABLE).isPresent()
                && Conditions.find(s.getConditions(), QueenKvClusterStatus.PROGRESSING).isPresent())
            Conditions.deriveKstatus(s.getConditions(), STALLED_REASONS, c.getMetadata().getGeneration(), clock.instant());
        s.setPhase(ClusterPhase.Degraded);
        try {
            saveStatus(c, s, context);
        } catch (RuntimeException saveFailed) {
            LOG.warn("{}/{}: could not record the failure in status: {}", Model.namespace(c), Model.name(c), saveFailed.getMessage());
        }
        return ErrorStatusUpdateControl.noStatusUpdate();
    }

    /**
     * Writes status so that the next reconcile reads it back, even before the informer has seen the
     * change (status records the intent every step is gated on): server-side apply in production,
     * an update locked on the resource version read otherwise (the mock API server has no apply).
     */
    private static void saveStatus(QueenKvCluster c, QueenKvClusterStatus s, Context<QueenKvCluster> context) {
        if (context.getControllerConfiguration().getConfigurationService().useSSAToPatchPrimaryResource()) {
            QueenKvCluster patch = new QueenKvCluster();
            patch.setMetadata(new io.fabric8.kubernetes.api.model.ObjectMetaBuilder()
                    .withName(Model.name(c)).withNamespace(Model.namespace(c)).build());
            patch.setSpec(null);
            patch.setStatus(s);
            PrimaryUpdateAndCacheUtils.ssaPatchStatusAndCacheResource(c, patch, context);
        } else {
            PrimaryUpdateAndCacheUtils.updateStatusAndCacheResource(c, context, r -> {
                r.setStatus(s);
                return r;
            });
        }
        c.setStatus(s);
    }

    // ---------------------------------------------------------------------------------------------
    // Step 3: how many pods the StatefulSet has, from what status records and the group

    /**
     * The completed member count ({@code status.replicas}), plus the ordinal being added, or minus the
     * ordinal already removed from the group.
     */
    static int statefulSetReplicas(QueenKvClusterStatus s) {
        int members = s.getReplicas() != null ? s.getReplicas() : s.getBootstrapReplicas();
        PendingOperation op = s.getPendingOperation();
        if (op == null) return members;
        return switch (op.getType()) {
            case ScaleUp -> Math.max(members, op.getOrdinal() + 1);
            case ScaleDown -> MEMBER_REMOVED.equals(op.getStep()) ? op.getOrdinal() : op.getOrdinal() + 1;
            case Roll -> members;
        };
    }

    /**
     * The size status calls for, bounded by the group: never below the highest ordinal in the leader's
     * configuration (or being re-admitted) + 1, so a stale or hand-edited status cannot take the pod of a
     * member; and, while no leader is visible to say who the members are, never below the current size.
     */
    static int safeStatefulSetReplicas(int fromStatus, Observed o, Integer current) {
        if (o.leaderView() == null) return Math.max(fromStatus, current == null ? 0 : current);
        int highest = java.util.stream.Stream.concat(o.members().stream(), o.readmitting().stream())
                .mapToInt(Names::ordinalOf).max().orElse(-1);
        return Math.max(fromStatus, highest + 1);
    }

    /** {@code spec.backup}: its claim (created once, never deleted) and CronJob; without it the CronJob goes, the backups stay. */
    private static void applyBackups(QueenKvCluster c, KubernetesClient client, ResourceApplier applier) {
        var backup = BackupModel.spec(c);
        String ns = Model.namespace(c), name = Model.name(c);
        if (backup.isPresent()) {
            var claim = client.persistentVolumeClaims().inNamespace(ns).withName(Names.backupClaim(name));
            if (claim.get() == null) client.resource(BackupModel.claim(c, backup.get())).create();
            applier.apply(BackupModel.cronJob(c, backup.get()));
        } else {
            var cronJob = client.batch().v1().cronjobs().inNamespace(ns).withName(Names.backupCronJob(name));
            if (cronJob.get() != null) cronJob.delete();
        }
    }

    /**
     * Claims past the StatefulSet that hold no member: a pod someone else scaled in and out ({@code kubectl
     * scale}) left its claim, as {@code whenScaled: Retain} keeps every claim. Deleted only while a leader
     * says who the members are, for an ordinal with no pod that is neither a member, being re-admitted, nor
     * the member of the recorded operation; a member's claim is never touched.
     */
    private static void deleteClaimsOfNoMember(QueenKvCluster c, QueenKvClusterStatus s, Observed o, KubernetesClient client,
                                               int statefulSetReplicas) {
        if (o.leaderView() == null) return;
        PendingOperation op = s.getPendingOperation();
        String prefix = Model.DATA_VOLUME + "-";
        for (PersistentVolumeClaim claim : client.persistentVolumeClaims().inNamespace(Model.namespace(c))
                .withLabels(Labels.selector(Model.name(c))).list().getItems()) {
            String name = claim.getMetadata().getName();
            int k = name.startsWith(prefix) ? Observed.podOrdinal(Model.name(c), name.substring(prefix.length())) : -1;
            String id = Names.nodeId(k);
            if (k < statefulSetReplicas || o.pod(k).isPresent() || o.isMember(id) || o.readmitting().contains(id)
                    || (op != null && op.getOrdinal() == k) || claim.getMetadata().getDeletionTimestamp() != null) continue;
            client.persistentVolumeClaims().inNamespace(Model.namespace(c)).withName(name).delete();
            LOG.info("{}/{}: deleted claim {}: no member {} and no pod use it", Model.namespace(c), Model.name(c), name, id);
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Step 4a: the next operation (recorded, not acted on)

    private Outcome next(QueenKvCluster c, QueenKvClusterStatus s, Observed o, String desiredHash) {
        if (o.leaderView() == null) return Outcome.waiting("waiting for the group to elect a leader");
        List<String> members = o.members();
        List<String> ready = o.readyMembers();
        boolean allReady = ready.size() == members.size();
        if (creating(s) && !(allReady && members.size() >= s.getBootstrapReplicas()))
            return Outcome.waiting("waiting for " + s.getBootstrapReplicas() + " members to be ready (" + ready.size() + " are)");

        // Settings: committed through the log, every node switches at the same index; no restart.
        KvSettings want = Model.spec(c).getSettings();
        if (want != null && differs(want, o.leaderView().settings())) {
            NodeAdmin.SettingsChange change = nodes.changeSettings(c, o.leaderOrdinal(), want);
            s.setSettings(change.settings());
            s.setSettingsIndex(change.settingsIndex());
            LOG.info("{}/{}: settings in force from index {}: {}", Model.namespace(c), Model.name(c), change.settingsIndex(), change.settings());
            return Outcome.advanced(REASON_SETTINGS, "settings committed at index " + change.settingsIndex());
        }

        // A member re-admitted after losing its disk is neither missing (to add) nor extra (to remove): wait for the node.
        if (!o.readmitting().isEmpty())
            return Outcome.waiting("waiting for " + String.join(", ", o.readmitting()) + " to be re-admitted (a learner until it has caught up)");

        int desired = Model.replicas(Model.spec(c));
        int highest = members.stream().mapToInt(Names::ordinalOf).max().orElse(-1);
        if (desired > members.size()) {
            if (!allReady) return Outcome.waiting("scale up waits until every member is ready");
            // The lowest ordinal missing from the group: past the highest member, or a gap below it (a member a
            // leader took out to re-admit it after a lost disk and died before taking it back in) whose pod and
            // claim are there: it is added back before any new ordinal.
            int add = java.util.stream.IntStream.range(0, desired).filter(k -> !o.isMember(Names.nodeId(k))).findFirst().orElse(highest + 1);
            return record(s, OperationType.ScaleUp, add, null, (add < highest ? "adding back " : "scale up: adding ") + Names.nodeId(add));
        }
        if (desired < members.size()) {
            String id = Names.nodeId(highest);
            Optional<String> refusal = quorumRefusal(o, id);
            if (refusal.isPresent()) return Outcome.refused(REASON_WOULD_LOSE_QUORUM, refusal.get());
            // The StatefulSet removes the highest ordinal only. Taking a serving member away while one that
            // stays is down would leave the group with fewer serving members than it needs to lose one more:
            // the members that stay are brought back first (a restarted pod, a re-admitted disk).
            List<String> downAndStaying = members.stream().filter(m -> !m.equals(id) && !o.ready(m)).toList();
            if (o.ready(id) && !downAndStaying.isEmpty())
                return Outcome.waiting("scale down waits until " + String.join(", ", downAndStaying) + ", which stay"
                        + (downAndStaying.size() == 1 ? "s" : "") + ", serve again (the highest ordinal, " + id + ", goes first)");
            return record(s, OperationType.ScaleDown, highest, null, "scale down: removing " + id);
        }

        // Roll: pods whose template hash is not the desired one, followers first, the leader last.
        List<String> stale = members.stream().filter(id -> !desiredHash.equals(o.podHash(Names.ordinalOf(id)))).toList();
        if (stale.isEmpty()) {
            s.setPodTemplateHash(desiredHash);
            s.setCurrentImage(Model.spec(c).getImage());
            return Outcome.idle();
        }
        Optional<String> down = stale.stream().filter(id -> !o.ready(id)).findFirst();
        String pick;
        if (!allReady) {
            // A member that is down anyway may be restarted (a new image may be its fix); no one else.
            if (down.isEmpty()) return Outcome.waiting("the roll waits until every member is ready");
            pick = down.get();
        } else {
            pick = stale.stream().filter(id -> !id.equals(o.leaderId()))
                    .max(Comparator.comparingInt(Names::ordinalOf)).orElse(o.leaderId());
        }
        return record(s, OperationType.Roll, Names.ordinalOf(pick), desiredHash, "rolling " + pick);
    }

    private Outcome record(QueenKvClusterStatus s, OperationType type, int ordinal, String hash, String message) {
        PendingOperation op = new PendingOperation(type, Names.nodeId(ordinal), ordinal, clock.instant().toString());
        op.setTargetPodTemplateHash(hash);
        op.setStep(RECORDED);
        s.setPendingOperation(op);
        return Outcome.advanced(reason(op), message);
    }

    /** Why removing {@code id} would leave the group without a quorum, if it would. */
    private static Optional<String> quorumRefusal(Observed o, String id) {
        List<String> members = o.members();
        List<String> ready = o.readyMembers();
        long readyAfter = ready.stream().filter(r -> !r.equals(id)).count();
        int majorityNow = Observed.majority(members.size());
        int majorityAfter = Observed.majority(members.size() - 1);
        if (ready.size() < majorityNow || readyAfter < majorityAfter)
            return Optional.of("removing " + id + " would leave " + readyAfter + " ready of " + (members.size() - 1)
                    + " members (a quorum needs " + majorityAfter + "); not ready: " + notReady(o));
        return Optional.empty();
    }

    // ---------------------------------------------------------------------------------------------
    // Step 4b: resume the recorded operation

    private Outcome resume(QueenKvCluster c, QueenKvClusterStatus s, Observed o, KubernetesClient client, String desiredHash) {
        PendingOperation op = s.getPendingOperation();
        if (o.leaderView() == null) return Outcome.waiting(op.getType() + " of " + op.getMember() + " waits for a leader: " + o.withoutLeader());
        Optional<String> superseded = supersededBy(c, o, op, desiredHash);
        if (superseded.isPresent()) {
            // Dropped from status first; the next reconcile sizes the StatefulSet and picks the next step from the current spec.
            s.setPendingOperation(null);
            LOG.info("{}/{}: {} of {} superseded: {}", Model.namespace(c), Model.name(c), op.getType(), op.getMember(), superseded.get());
            return Outcome.advanced(reason(op), op.getType() + " of " + op.getMember() + " superseded: " + superseded.get());
        }
        return switch (op.getType()) {
            case ScaleUp -> resumeScaleUp(c, s, o, op, client, desiredHash);
            case ScaleDown -> resumeScaleDown(c, s, o, op, client);
            case Roll -> resumeRoll(c, s, o, op, client);
        };
    }

    /**
     * Why the recorded operation no longer follows the spec, if it does not: a roll towards a template the
     * spec has left (a reverted image: its target may be the very pod that cannot start); a scale-up whose
     * member is not in the group yet while the spec no longer wants it; a scale-down whose member is still
     * in the group while the spec wants it again. A member already added, or already removed, is finished
     * first: the step that follows undoes it the safe way.
     */
    static Optional<String> supersededBy(QueenKvCluster c, Observed o, PendingOperation op, String desiredHash) {
        int wanted = Model.replicas(Model.spec(c));
        return switch (op.getType()) {
            case Roll -> desiredHash.equals(op.getTargetPodTemplateHash()) ? Optional.empty()
                    : Optional.of("the pod template changed again (now " + desiredHash + ")");
            case ScaleUp -> !o.isMember(op.getMember()) && wanted <= op.getOrdinal()
                    ? Optional.of("spec.replicas is " + wanted + " now") : Optional.empty();
            case ScaleDown -> o.isMember(op.getMember()) && !MEMBER_REMOVED.equals(op.getStep()) && wanted >= o.members().size()
                    ? Optional.of("spec.replicas is " + wanted + " now") : Optional.empty();
        };
    }

    /** Pod started → added through the leader → caught up. A pod stuck on an older template is replaced first. */
    private Outcome resumeScaleUp(QueenKvCluster c, QueenKvClusterStatus s, Observed o, PendingOperation op, KubernetesClient client,
                                  String desiredHash) {
        int k = op.getOrdinal();
        String id = op.getMember();
        if (!o.isMember(id)) {
            Optional<Pod> pod = o.pod(k);
            if (pod.isPresent() && Observed.stuck(pod.get()) && !desiredHash.equals(o.podHash(k)) && !Observed.terminating(pod.get())) {
                // Not a member: nothing to protect. The StatefulSet (OnDelete) recreates it from the current template.
                client.pods().inNamespace(Model.namespace(c)).withName(pod.get().getMetadata().getName()).delete();
                return Outcome.advanced(REASON_SCALING_UP, "replaced pod " + pod.get().getMetadata().getName() + ", stuck on an older template");
            }
            if (!o.views().containsKey(k)) return Outcome.waiting("waiting for pod " + Names.pod(Model.name(c), k) + " to start");
            Peers.NodeAddress a = Peers.node(c, k);
            nodes.addMember(c, o.leaderOrdinal(), id, a.raftAddress(), a.httpAddress());
            op.setStep(MEMBER_ADDED);
            LOG.info("{}/{}: added {} to the group", Model.namespace(c), Model.name(c), id);
            return Outcome.advanced(REASON_SCALING_UP, "added " + id + "; waiting for it to catch up");
        }
        op.setStep(MEMBER_ADDED);
        if (!caughtUp(c, o, id)) return Outcome.waiting("waiting for " + id + " to catch up (" + o.notReadyReason(id) + ")");
        s.setReplicas(statefulSetReplicas(s)); // k + 1, or as before when k filled a gap below the highest member
        s.setPendingOperation(null);
        LOG.info("{}/{}: {} caught up; {} members", Model.namespace(c), Model.name(c), id, o.members().size());
        return Outcome.advanced(REASON_SCALING_UP, id + " caught up");
    }

    /**
     * Leadership moved off → removed from the group (committed) → {@code MemberRemoved} persisted → StatefulSet
     * shrunk (by the next reconcile's apply, which sizes it from that status) → its pod gone → its claim deleted.
     * The shrink never precedes the persisted removal, and the claim is the operator's to delete
     * ({@code whenScaled: Retain}), so no other shrink takes the data of a member still in the group.
     */
    private Outcome resumeScaleDown(QueenKvCluster c, QueenKvClusterStatus s, Observed o, PendingOperation op,
                                    KubernetesClient client) {
        int k = op.getOrdinal();
        String id = op.getMember();
        if (o.isMember(id)) {
            Optional<String> refusal = quorumRefusal(o, id);
            if (refusal.isPresent()) return Outcome.refused(REASON_WOULD_LOSE_QUORUM, refusal.get());
            if (id.equals(o.leaderId())) return moveLeadershipOff(c, o, op, null, REASON_SCALING_DOWN);
            nodes.removeMember(c, o.leaderOrdinal(), id);
            LOG.info("{}/{}: removed {} from the group", Model.namespace(c), Model.name(c), id);
        }
        if (!MEMBER_REMOVED.equals(op.getStep())) {
            op.setStep(MEMBER_REMOVED);
            return Outcome.advanced(REASON_SCALING_DOWN, "removed " + id + " from the group; shrinking the StatefulSet next");
        }
        if (o.pod(k).isPresent()) return Outcome.waiting("removed " + id + "; waiting for pod " + Names.pod(Model.name(c), k) + " to go");
        client.persistentVolumeClaims().inNamespace(Model.namespace(c)).withName(Names.dataClaim(Model.name(c), k)).delete();
        s.setReplicas(k);
        s.setPendingOperation(null);
        LOG.info("{}/{}: {} removed, claim deleted; {} members", Model.namespace(c), Model.name(c), id, k);
        return Outcome.advanced(REASON_SCALING_DOWN, id + " removed");
    }

    /** Hands leadership from the operation's member (the leader) to a ready member, preferring one on {@code preferHash}. */
    private Outcome moveLeadershipOff(QueenKvCluster c, Observed o, PendingOperation op, String preferHash, String reason) {
        String id = op.getMember();
        String to = handOffTarget(o, id, preferHash);
        if (to == null) return Outcome.waiting("no ready member to hand leadership to");
        nodes.transferLeadership(c, o.leaderOrdinal(), to);
        op.setStep(LEADERSHIP_MOVED);
        LOG.info("{}/{}: moved leadership from {} to {}", Model.namespace(c), Model.name(c), id, to);
        return Outcome.advanced(reason, "moved leadership from " + id + " to " + to);
    }

    /** Leadership moved off (the leader only) → pod deleted → back on the new template, ready and caught up. */
    private Outcome resumeRoll(QueenKvCluster c, QueenKvClusterStatus s, Observed o, PendingOperation op, KubernetesClient client) {
        int k = op.getOrdinal();
        String id = op.getMember();
        String target = op.getTargetPodTemplateHash();
        boolean restarted = target != null && target.equals(o.podHash(k));
        if (!restarted && !POD_DELETED.equals(op.getStep())) {
            if (id.equals(o.leaderId())) return moveLeadershipOff(c, o, op, target, REASON_ROLLING);
            Optional<Pod> pod = o.pod(k);
            if (pod.isPresent() && !Observed.terminating(pod.get())) {
                // Checked again now, not only when the roll was recorded: a drain or a crash since then
                // may have taken another member, and this restart would then take the quorum with it.
                Optional<String> refusal = restartRefusal(o, id);
                if (refusal.isPresent()) return Outcome.waiting(refusal.get());
                if (!restart(c, o, pod.get(), client))
                    return Outcome.waiting("the PodDisruptionBudget does not allow restarting " + id + " now (eviction refused)");
                LOG.info("{}/{}: restarting {} (pod {})", Model.namespace(c), Model.name(c), id, pod.get().getMetadata().getName());
            }
            op.setStep(POD_DELETED);
            return Outcome.advanced(REASON_ROLLING, "restarting " + id);
        }
        if (!restarted) return Outcome.waiting("waiting for pod " + Names.pod(Model.name(c), k) + " to come back");
        if (!caughtUp(c, o, id)) return Outcome.waiting("waiting for " + id + " to catch up after its restart (" + o.notReadyReason(id) + ")");
        s.setPendingOperation(null);
        LOG.info("{}/{}: {} restarted and caught up", Model.namespace(c), Model.name(c), id);
        return Outcome.advanced(REASON_ROLLING, id + " restarted");
    }

    /**
     * Why restarting {@code id} now would leave fewer than a quorum of voters ready, if it would. A member
     * that is not ready serves no quorum: restarting it (a new image may be its fix) takes nothing away.
     */
    static Optional<String> restartRefusal(Observed o, String id) {
        if (!o.ready(id)) return Optional.empty();
        List<String> voters = o.voters();
        long othersReady = voters.stream().filter(v -> !v.equals(id)).filter(o::ready).count();
        int quorum = Observed.majority(voters.size());
        if (othersReady >= quorum) return Optional.empty();
        return Optional.of("restarting " + id + " waits: " + othersReady + " other voters ready, a quorum needs " + quorum
                + "; not ready: " + notReady(o));
    }

    /**
     * Restarts a member's pod through the Eviction API, so a PodDisruptionBudget (ours, or a drain's
     * view of it) has its say; false when it refuses (429): try again later. A group of one has no
     * disruption to spare (its budget allows none), so its pod, which the user asked to restart, is deleted.
     */
    private static boolean restart(QueenKvCluster c, Observed o, Pod pod, KubernetesClient client) {
        var p = client.pods().inNamespace(Model.namespace(c)).withName(pod.getMetadata().getName());
        if (o.members().size() <= 1) {
            p.delete();
            return true;
        }
        return p.evict(new EvictionBuilder().withNewMetadata().withName(pod.getMetadata().getName())
                .withNamespace(Model.namespace(c)).endMetadata().build());
    }

    /** A ready member other than {@code leaving}, one already on {@code preferredHash} first, then the lowest ordinal. */
    private static String handOffTarget(Observed o, String leaving, String preferredHash) {
        Function<String, Boolean> onHash = id -> preferredHash != null && preferredHash.equals(o.podHash(Names.ordinalOf(id)));
        return o.readyMembers().stream().filter(id -> !id.equals(leaving))
                .min(Comparator.comparing((String id) -> !onHash.apply(id)).thenComparingInt(Names::ordinalOf))
                .orElse(null);
    }

    /** In the leader's configuration, pod ready, {@code /readyz} answering 200, applied close to the leader's commit. */
    private boolean caughtUp(QueenKvCluster c, Observed o, String id) {
        return o.ready(id) && nodes.ready(c, Names.ordinalOf(id));
    }

    // ---------------------------------------------------------------------------------------------
    // Step 5: status

    private void writeStatus(QueenKvCluster c, QueenKvClusterStatus s, Observed o, Outcome outcome) {
        Instant now = clock.instant();
        Long gen = c.getMetadata().getGeneration();
        s.setSelector(Labels.selectorString(Model.name(c)));
        s.setLeader(o.leaderId());

        List<String> readmitting = o.readmitting();
        List<MemberStatus> previous = s.getMembers() == null ? List.of() : s.getMembers();
        List<MemberStatus> members = new ArrayList<>();
        if (o.leaderView() != null)
            for (String id : o.members()) {
                ClusterView.Member m = o.leaderView().member(id).orElseThrow();
                MemberStatus ms = new MemberStatus(id, m.raftAddress(), m.httpAddress(),
                        id.equals(o.leaderId()) ? "leader" : m.role() == null ? "follower" : m.role(), o.serving(id));
                if (readmitting.contains(id)) ms.setReadmitting(true);
                members.add(ms);
            }
        else
            // No leader answered this time (a slow admin call, an election under way): the members last seen
            // stay, ready as their pods are (/readyz: the node knows a leader and has caught up), so one
            // missed answer neither empties the list nor takes Available away while a quorum serves.
            for (MemberStatus p : previous) {
                if (p.getRaftAddress() == null) continue; // re-admitting, not in the configuration
                boolean learner = ClusterView.LEARNER.equals(p.getRole());
                MemberStatus ms = new MemberStatus(p.getId(), p.getRaftAddress(), p.getHttpAddress(), learner ? ClusterView.LEARNER : null,
                        Observed.podReady(o.pods().get(Names.ordinalOf(p.getId()))));
                members.add(ms);
            }
        s.setMembers(members);
        int ready = (int) members.stream().filter(m -> Boolean.TRUE.equals(m.getReady())).count();
        // Removed and not yet added back as a learner: still shown, so the member never vanishes from status.
        for (String id : readmitting)
            if (!o.isMember(id)) {
                MemberStatus ms = new MemberStatus(id, null, null, null, false);
                ms.setReadmitting(true);
                members.add(ms);
            }
        members.sort(Comparator.comparingInt(m -> Names.ordinalOf(m.getId())));
        s.setReadyReplicas(ready);
        if (o.leaderView() != null && o.leaderView().settings() != null
                && (s.getSettingsIndex() == null || o.leaderView().settingsIndex() >= s.getSettingsIndex())) {
            s.setSettings(o.leaderView().settings());
            s.setSettingsIndex(o.leaderView().settingsIndex());
        }

        boolean creating = creating(s) && !(o.leaderView() != null && ready == members.size() && members.size() >= s.getBootstrapReplicas());
        if (!creating && s.getBootstrappedAt() == null) s.setBootstrappedAt(now.truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString());
        PendingOperation op = s.getPendingOperation();

        // Available: a quorum of the voting members serves (a learner does not vote).
        boolean available;
        String availableMessage;
        if (o.leaderView() != null) {
            List<String> voters = o.voters();
            long readyVoters = voters.stream().filter(o::serving).count();
            available = readyVoters >= Observed.majority(voters.size());
            availableMessage = ready + " of " + o.members().size() + " members ready, leader " + o.leaderId();
        } else {
            List<MemberStatus> voters = members.stream().filter(m -> !ClusterView.LEARNER.equals(m.getRole())).toList();
            long readyVoters = voters.stream().filter(m -> Boolean.TRUE.equals(m.getReady())).count();
            available = !creating && !voters.isEmpty() && readyVoters >= Observed.majority(voters.size());
            availableMessage = "no leader answered; " + readyVoters + " of " + voters.size() + " voters' pods ready; " + o.withoutLeader();
        }
        Conditions.set(s.getConditions(), QueenKvClusterStatus.AVAILABLE, available,
                available ? REASON_QUORUM : creating ? REASON_CREATING : REASON_NO_QUORUM, availableMessage, gen, now);

        // Progressing: an operation is recorded, the group is being created, or a step just ran (not while paused).
        boolean paused = REASON_PAUSED.equals(outcome.progressReason());
        boolean progressing = !paused && (op != null || creating || outcome.progressReason() != null);
        String progressReason = paused ? REASON_PAUSED : op != null ? reason(op) : creating ? REASON_CREATING
                : outcome.progressReason() != null ? outcome.progressReason() : REASON_RECONCILED;
        // observedGeneration: the spec this status says is done (everything it asks for is in place).
        if (!paused && !progressing) s.setObservedGeneration(gen);
        String progressMessage = progressing || paused ? outcome.message()
                : members.size() + " members on " + Model.spec(c).getImage()
                        + (s.getSettingsIndex() == null ? "" : ", settings in force from index " + s.getSettingsIndex());
        Conditions.set(s.getConditions(), QueenKvClusterStatus.PROGRESSING, progressing, progressReason, progressMessage, gen, now);

        // Degraded: a member is lost (other than the one an operation is working on), a step is refused or stuck.
        String degradedReason = null;
        String degradedMessage = null;
        String working = op == null ? null : op.getMember();
        List<String> lost = o.members().stream().filter(id -> !o.serving(id) && !id.equals(working) && !readmitting.contains(id)).toList();
        Instant since = op != null ? Instant.parse(op.getStartedAt()) : creationTime(c);
        if (outcome.degradedReason() != null) {
            degradedReason = outcome.degradedReason();
            degradedMessage = outcome.message();
        } else if ((op != null || creating) && since != null && since.plus(timing.stuckAfter()).isBefore(now)) {
            degradedReason = REASON_STUCK;
            degradedMessage = (op != null ? op.getType() + " of " + op.getMember() + " at step " + op.getStep() : "creation")
                    + " since " + since + ": " + outcome.message();
        } else if (!creating && o.leaderView() == null) {
            degradedReason = REASON_NO_LEADER;
            degradedMessage = "no node reports itself leader: " + o.withoutLeader();
        } else if (!creating && !readmitting.isEmpty()) {
            degradedReason = REASON_MEMBER_READMITTING;
            degradedMessage = String.join(", ", readmitting) + " lost its data and is being re-admitted (a learner until it has caught up)"
                    + (lost.isEmpty() ? "" : "; not ready: " + notReady(o, lost));
        } else if (!creating && !lost.isEmpty()) {
            degradedReason = REASON_MEMBER_NOT_READY;
            degradedMessage = notReady(o, lost);
        }
        Conditions.set(s.getConditions(), QueenKvClusterStatus.DEGRADED, degradedReason != null,
                degradedReason != null ? degradedReason : REASON_HEALTHY,
                degradedReason != null ? degradedMessage : "every member is ready", gen, now);
        Conditions.deriveKstatus(s.getConditions(), STALLED_REASONS, gen, now);

        if (degradedReason != null) s.setPhase(ClusterPhase.Degraded);
        else if (op != null) s.setPhase(op.getType() == OperationType.Roll ? ClusterPhase.Rolling : ClusterPhase.Scaling);
        else if (creating) s.setPhase(ClusterPhase.Creating);
        else s.setPhase(ClusterPhase.Running);
    }

    /** Creating until the bootstrap members were first all ready ({@code status.bootstrappedAt}); never again after that. */
    private static boolean creating(QueenKvClusterStatus s) {
        if (s.getBootstrappedAt() != null) return false;
        return s.getPhase() == null || s.getPhase() == ClusterPhase.Creating
                || (s.getPhase() == ClusterPhase.Degraded && Conditions.find(s.getConditions(), QueenKvClusterStatus.PROGRESSING)
                        .map(p -> REASON_CREATING.equals(p.getReason())).orElse(false));
    }

    private static Instant creationTime(QueenKvCluster c) {
        String t = c.getMetadata().getCreationTimestamp();
        try {
            return t == null ? null : Instant.parse(t);
        } catch (RuntimeException e) {
            return null;
        }
    }

    private static String reason(PendingOperation op) {
        return switch (op.getType()) {
            case ScaleUp -> REASON_SCALING_UP;
            case ScaleDown -> REASON_SCALING_DOWN;
            case Roll -> REASON_ROLLING;
        };
    }

    private static String notReady(Observed o) {
        return notReady(o, o.members().stream().filter(id -> !o.ready(id)).toList());
    }

    private static String notReady(Observed o, List<String> ids) {
        if (ids.isEmpty()) return "none";
        StringBuilder b = new StringBuilder();
        for (String id : ids) b.append(b.length() == 0 ? "" : ", ").append(id).append(" (").append(o.notReadyReason(id)).append(')');
        return b.toString();
    }

    /** Whether a field the spec sets differs from the value in force. */
    static boolean differs(KvSettings want, KvSettings inForce) {
        if (inForce == null) return true;
        return (want.getMaxValueBytes() != null && !want.getMaxValueBytes().equals(inForce.getMaxValueBytes()))
                || (want.getMaxKeysPerCall() != null && !want.getMaxKeysPerCall().equals(inForce.getMaxKeysPerCall()))
                || (want.getMaxOpsPerCall() != null && !want.getMaxOpsPerCall().equals(inForce.getMaxOpsPerCall()))
                || (want.getMaxBodyBytes() != null && !want.getMaxBodyBytes().equals(inForce.getMaxBodyBytes()))
                || (want.getWriteRate() != null && !want.getWriteRate().equals(inForce.getWriteRate()))
                || (want.getReadRate() != null && !want.getReadRate().equals(inForce.getReadRate()));
    }

    private static QueenKvClusterStatus copy(QueenKvClusterStatus s) {
        return Serialization.unmarshal(Serialization.asJson(s), QueenKvClusterStatus.class);
    }

    private static String json(QueenKvClusterStatus s) {
        return s == null ? null : Serialization.asJson(s);
    }

    private static QueenKvCluster withStatus(QueenKvCluster c, QueenKvClusterStatus s) {
        QueenKvCluster v = new QueenKvCluster();
        v.setMetadata(c.getMetadata());
        v.setSpec(c.getSpec());
        v.setStatus(s);
        return v;
    }

    /**
     * What step 4 did or is waiting for.
     *
     * @param busy           more to do: look again
     * @param soon           a step was recorded or done: look again right away
     * @param progressReason the Progressing reason when something moved (null: nothing did)
     * @param degradedReason set when the step is refused (e.g. it would lose the quorum)
     */
    record Outcome(boolean busy, boolean soon, String progressReason, String degradedReason, String message) {
        static Outcome idle() { return new Outcome(false, false, null, null, "nothing to do"); }

        static Outcome waiting(String message) { return new Outcome(true, false, REASON_WAITING, null, message); }

        static Outcome advanced(String reason, String message) { return new Outcome(true, true, reason, null, message); }

        static Outcome refused(String degradedReason, String message) { return new Outcome(true, false, null, degradedReason, message); }

        static Outcome paused() {
            return new Outcome(false, false, REASON_PAUSED, null, "paused: the " + Model.PAUSED_ANNOTATION
                    + " annotation is \"true\"; the operator changes nothing until it is removed");
        }
    }
}
