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

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
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
import io.queenkv.operator.crd.ClusterPhase;
import io.queenkv.operator.crd.MemberStatus;
import io.queenkv.operator.crd.OperationType;
import io.queenkv.operator.crd.PendingOperation;
import io.queenkv.operator.crd.QueenKvCluster;
import io.queenkv.operator.crd.QueenKvClusterStatus;
import io.queenkv.operator.model.BackupModel;
import io.queenkv.operator.model.Labels;
import io.queenkv.operator.model.Model;
import io.queenkv.operator.model.Names;
import io.queenkv.operator.model.NodeEnv;
import io.queenkv.operator.nodes.ClusterView;
import io.queenkv.operator.nodes.NodeAdmin;
import io.queenkv.operator.nodes.NodeAdminException;
import io.queenkv.operator.plan.Action;
import io.queenkv.operator.plan.Observed;
import io.queenkv.operator.plan.Planner;
import io.queenkv.operator.plan.SpecView;

/**
 * Reconciles a {@link QueenKvCluster} as a chain of named, idempotent steps, each gated on what status
 * records:
 * <ol>
 *   <li><b>bootstrap</b>: record {@code status.bootstrapReplicas} (the fixed initial peer list) before
 *       anything is created;</li>
 *   <li><b>TLS</b>: the cluster CA and node certificate Secrets, or the cert-manager Certificate
 *       ({@link TlsMaterial}), before any pod that mounts them; then <b>observe</b>: the pods and each
 *       node's view of the group through {@link NodeAdmin} ({@link Observed});</li>
 *   <li><b>apply</b>: the ConfigMap, both Services, the StatefulSet (sized from status, one ordinal at a
 *       time, never below the highest member's ordinal + 1, never shrunk while no leader is visible), the
 *       PodDisruptionBudget and the backup CronJob, each a JOSDK dependent resource reconciled here, at this
 *       step, with the size decided here ({@link OwnedResources} says why standalone dependents);</li>
 *   <li><b>plan and act</b>: the {@link Planner} (a pure function of spec, status and what was observed)
 *       names the one next {@link Action}: resume the recorded {@code pendingOperation} ({@link ScaleUp},
 *       {@link ScaleDown}, {@link Roll}, {@link Replace}, each stating its algorithm and safety), or apply settings, or
 *       <em>record</em> the next operation: the next reconcile acts, so an operator restarted mid-way finds
 *       the intent in status and resumes it;</li>
 *   <li><b>status</b>: an event for a step taken or refused; phase, members, leader, settings in force,
 *       conditions, written once; a reschedule only while work remains or a member is not ready.</li>
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

    /** Condition reasons. */
    public static final String REASON_QUORUM = "QuorumAvailable";
    public static final String REASON_NO_QUORUM = "NoQuorum";
    public static final String REASON_CREATING = Planner.CREATING_REASON;
    public static final String REASON_CREATED = "Created";
    public static final String REASON_PAUSED = "ReconciliationPaused";
    public static final String REASON_SCALING_UP = "ScalingUp";
    public static final String REASON_SCALING_DOWN = "ScalingDown";
    public static final String REASON_ROLLING = "Rolling";
    public static final String REASON_REPLACING = "ReplacingMember";
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
    private final ScaleUp scaleUp;
    private final ScaleDown scaleDown;
    private final Roll roll;
    private final Replace replace;
    private final OwnedResources owned = new OwnedResources();

    public QueenKvReconciler(NodeAdmin nodes) {
        this(nodes, Timing.production(), Clock.systemUTC());
    }

    public QueenKvReconciler(NodeAdmin nodes, Timing timing, Clock clock) {
        this.nodes = nodes;
        this.timing = timing;
        this.clock = clock;
        this.tls = new TlsMaterial(clock);
        this.events = new ClusterEvents(clock);
        this.scaleUp = new ScaleUp(nodes);
        this.scaleDown = new ScaleDown(nodes);
        this.roll = new Roll(nodes);
        this.replace = new Replace(nodes);
    }

    /** How many times {@link #reconcile} ran (tests check there is no hot loop). */
    public long reconcileCount() { return reconciles.get(); }

    /** Pod events (readiness, restarts) and changes to an owned object ({@link OwnedResources}) trigger a reconcile of their cluster. */
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
        List<EventSource<?, QueenKvCluster>> sources = new ArrayList<>(owned.eventSources(context));
        sources.add(new InformerEventSource<>(pods, context));
        return sources;
    }

    @Override
    public UpdateControl<QueenKvCluster> reconcile(QueenKvCluster c, Context<QueenKvCluster> context) {
        reconciles.incrementAndGet();
        KubernetesClient client = context.getClient();
        QueenKvClusterStatus before = c.getStatus();
        QueenKvClusterStatus s = before == null ? new QueenKvClusterStatus() : copy(before);

        // 1. The initial peer list is fixed before anything is created.
        if (s.getBootstrapReplicas() == null) {
            recordBootstrap(c, s);
            saveStatus(c, s, context);
            return UpdateControl.<QueenKvCluster>noUpdate().rescheduleAfter(timing.step());
        }
        QueenKvCluster view = withStatus(c, s); // the model reads bootstrapReplicas from status
        SpecView spec = SpecView.of(view);

        // 2. TLS material, then what the pods and the nodes say (before the StatefulSet is sized: the group bounds its size).
        // While paused nothing changes anything; status stays true.
        if (!spec.paused()) {
            tls.ensure(view, client, new ResourceApplier(client,
                    context.getControllerConfiguration().getConfigurationService().ssaBasedCreateUpdateMatchForDependentResources()));
            owned.reconcileCertificate(view, context);
        }
        Observed o = Observed.of(client, nodes, view);

        // 3. The owned resources, the StatefulSet at the size the recorded operation calls for, bounded by the group.
        if (!spec.paused()) reconcileOwnedResources(view, s, o, context);

        // 4. One step, as the planner decides it: resume the recorded operation, or record the next one.
        Action action = Planner.next(spec, s, o, clock.instant());
        Outcome outcome = act(action, new MemberOperation.Reconciling(view, s, o, client, spec.podTemplateHash()));

        // 5. An event for a step taken or refused, then status.
        if (outcome.degradedReason() != null) events.record(client, c, ClusterEvents.Type.Warning, outcome.degradedReason(), outcome.message());
        else if (outcome.soon()) events.record(client, c, ClusterEvents.Type.Normal, outcome.progressReason(), outcome.message());
        boolean bootstrapped = s.getBootstrappedAt() != null;
        writeStatus(view, s, o, outcome);
        if (!Objects.equals(json(before), json(s))) saveStatus(c, s, context);
        if (!spec.paused() && !bootstrapped && s.getBootstrappedAt() != null) {
            // Recorded first, then every container started from now on reads QUEEN_KV_INITIAL_CLUSTER_STATE=existing.
            owned.reconcileConfigMap(view, context);
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

    /** Step 1: {@code status.bootstrapReplicas} (the fixed initial peer list), and Creating. */
    private void recordBootstrap(QueenKvCluster c, QueenKvClusterStatus s) {
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
    }

    /**
     * Step 3: the ConfigMap, Services, StatefulSet, PodDisruptionBudget and backups ({@link OwnedResources}); claims of
     * no member deleted. The StatefulSet's size is the planner's, never below the highest member's ordinal + 1 and never
     * below its current size while no leader is visible.
     */
    private void reconcileOwnedResources(QueenKvCluster c, QueenKvClusterStatus s, Observed o, Context<QueenKvCluster> context) {
        int statefulSetReplicas = Planner.safeStatefulSetReplicas(Planner.statefulSetReplicas(s), o, owned.statefulSetReplicas(c, context));
        owned.reconcile(c, context, statefulSetReplicas);
        applyBackups(c, context);
        deleteClaimsOfNoMember(c, s, o, context.getClient(), statefulSetReplicas);
    }

    /**
     * Step 4: carries out what the planner decided. Only here, and in the {@link MemberOperation} it
     * resumes, does a reconcile call a node or change a pod; status changes go to {@code r.status()},
     * written once afterwards.
     */
    private Outcome act(Action action, MemberOperation.Reconciling r) {
        QueenKvClusterStatus s = r.status();
        try {
            if (action instanceof Action.Paused) return Outcome.paused();
            if (action instanceof Action.Wait w) return Outcome.waiting(w.reason());
            if (action instanceof Action.WouldLoseQuorum q) return Outcome.refused(REASON_WOULD_LOSE_QUORUM, q.reason());
            if (action instanceof Action.ApplySettings a) {
                // Committed through the log, every node switches at the same index; no restart.
                NodeAdmin.SettingsChange change = nodes.changeSettings(r.cluster(), r.observed().leaderOrdinal(), a.settings());
                s.setSettings(change.settings());
                s.setSettingsIndex(change.settingsIndex());
                LOG.info("{}/{}: settings in force from index {}: {}", r.namespace(), r.name(), change.settingsIndex(), change.settings());
                return Outcome.advanced(REASON_SETTINGS, "settings committed at index " + change.settingsIndex());
            }
            if (action instanceof Action.Record rec) {
                // Only recorded: the next reconcile acts, so a restarted operator finds the intent in status.
                s.setPendingOperation(rec.operation());
                return Outcome.advanced(reason(rec.operation()), rec.message());
            }
            if (action instanceof Action.Supersede sup) {
                // Dropped from status first; the next reconcile sizes the StatefulSet and picks the next step from the current spec.
                PendingOperation op = sup.operation();
                s.setPendingOperation(null);
                LOG.info("{}/{}: {} of {} superseded: {}", r.namespace(), r.name(), op.getType(), op.getMember(), sup.why());
                return Outcome.advanced(reason(op), op.getType() + " of " + op.getMember() + " superseded: " + sup.why());
            }
            if (action instanceof Action.Resume res) {
                MemberOperation operation = switch (res.operation().getType()) {
                    case ScaleUp -> scaleUp;
                    case ScaleDown -> scaleDown;
                    case Roll -> roll;
                    case Replace -> replace;
                };
                return operation.resume(r, res.operation());
            }
            if (action instanceof Action.UpToDate u) {
                s.setPodTemplateHash(u.podTemplateHash());
                s.setCurrentImage(u.image());
                return Outcome.idle();
            }
            throw new IllegalStateException("no way to act on " + action);
        } catch (NodeAdminException e) {
            LOG.info("{}/{}: admin call failed: {}", r.namespace(), r.name(), e.getMessage());
            return Outcome.waiting("admin call failed, retrying: " + e.getMessage());
        }
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

    /** {@code spec.backup}: its claim (created once, never deleted) and CronJob; without it the CronJob goes, the backups stay. */
    private void applyBackups(QueenKvCluster c, Context<QueenKvCluster> context) {
        var backup = BackupModel.spec(c);
        if (backup.isPresent()) {
            var claim = context.getClient().persistentVolumeClaims().inNamespace(Model.namespace(c)).withName(Names.backupClaim(Model.name(c)));
            if (claim.get() == null) context.getClient().resource(BackupModel.claim(c, backup.get())).create();
        }
        owned.reconcileBackupCronJob(c, context);
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
    // Step 5: status

    private void writeStatus(QueenKvCluster c, QueenKvClusterStatus s, Observed o, Outcome outcome) {
        Instant now = clock.instant();
        Long gen = c.getMetadata().getGeneration();
        s.setSelector(Labels.selectorString(Model.name(c)));
        s.setLeader(o.leaderId());
        if (s.getReplacedMembers() != null) {
            // Only what the spec still names: an ordinal named again later is replaced again.
            List<Integer> replaced = s.getReplacedMembers().stream().filter(Model.removeMembers(Model.spec(c))::contains).toList();
            s.setReplacedMembers(replaced.isEmpty() ? null : replaced);
        }

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
        trackNotReadySince(members, previous, o, now);
        s.setReadyReplicas(ready);
        if (o.leaderView() != null && o.leaderView().settings() != null
                && (s.getSettingsIndex() == null || o.leaderView().settingsIndex() >= s.getSettingsIndex())) {
            s.setSettings(o.leaderView().settings());
            s.setSettingsIndex(o.leaderView().settingsIndex());
        }

        boolean creating = Planner.creating(s) && !(o.leaderView() != null && ready == members.size() && members.size() >= s.getBootstrapReplicas());
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
                    + (lost.isEmpty() ? "" : "; not ready: " + o.notReady(lost));
        } else if (!creating && !lost.isEmpty()) {
            degradedReason = REASON_MEMBER_NOT_READY;
            degradedMessage = o.notReady(lost);
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

    /**
     * {@code status.members[].notReadySince}: kept from {@code previous} while a member stays not ready (later if its pod
     * turned not ready since, {@link Observed#notServingSince}), {@code now} when it is first seen so, gone once it is
     * ready. Status is the operator's only memory between reconciles (and across its restarts): the planner reads how
     * long a member has not served from here, to replace one a scale-down would otherwise wait for
     * ({@code spec.replaceNotServingAfter}).
     */
    private static void trackNotReadySince(List<MemberStatus> members, List<MemberStatus> previous, Observed o, Instant now) {
        for (MemberStatus m : members) {
            if (Boolean.TRUE.equals(m.getReady())) continue;
            Instant since = previous.stream().filter(p -> m.getId().equals(p.getId()) && p.getNotReadySince() != null)
                    .map(MemberStatus::getNotReadySince).findFirst().flatMap(QueenKvReconciler::instant)
                    .map(recorded -> o.notServingSince(m.getId(), recorded))
                    .orElse(now.truncatedTo(java.time.temporal.ChronoUnit.SECONDS));
            m.setNotReadySince(since.toString());
        }
    }

    private static Optional<Instant> instant(String s) {
        try {
            return Optional.of(Instant.parse(s));
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    private static Instant creationTime(QueenKvCluster c) {
        String t = c.getMetadata().getCreationTimestamp();
        return t == null ? null : instant(t).orElse(null);
    }

    private static String reason(PendingOperation op) {
        return switch (op.getType()) {
            case ScaleUp -> REASON_SCALING_UP;
            case ScaleDown -> REASON_SCALING_DOWN;
            case Roll -> REASON_ROLLING;
            case Replace -> REASON_REPLACING;
        };
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
}
