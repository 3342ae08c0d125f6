package io.queenkv.operator;

import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Function;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.dependent.GarbageCollected;
import io.javaoperatorsdk.operator.processing.GroupVersionKind;
import io.javaoperatorsdk.operator.processing.dependent.Creator;
import io.javaoperatorsdk.operator.processing.dependent.Updater;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.GenericKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.queenkv.operator.crd.QueenKvCluster;
import io.queenkv.operator.model.BackupModel;
import io.queenkv.operator.model.ConfigMapModel;
import io.queenkv.operator.model.Labels;
import io.queenkv.operator.model.Model;
import io.queenkv.operator.model.Names;
import io.queenkv.operator.model.PodDisruptionBudgetModel;
import io.queenkv.operator.model.ServiceModel;
import io.queenkv.operator.model.StatefulSetModel;
import io.queenkv.operator.model.TlsModel;

/**
 * The objects a cluster owns, as JOSDK dependent resources whose {@code desired()} is the pure model
 * builder of each: the ConfigMap, the peer and client Services, the StatefulSet, the PodDisruptionBudget,
 * {@code spec.backup}'s CronJob and, with {@code spec.tls.issuerRef}, cert-manager's Certificate. JOSDK creates what is missing and updates what no longer matches,
 * by server-side apply under the controller's field manager when the operator runs with it (its matcher
 * reads that manager's fields; JOSDK keeps ConfigMaps out of apply by default and updates them) and by
 * create-or-update with its generic matcher otherwise (Fabric8's mock API server has no apply): an
 * unchanged object is never rewritten. Each is owned by its cluster (garbage-collected with it), and
 * its informer, limited to {@code app.kubernetes.io/managed-by=queen-kv-operator}, is an event source of
 * the reconciler: a change to an owned object triggers a reconcile of its cluster.
 *
 * <p>Standalone dependents, not a managed workflow: the reconciler is a chain of named steps gated on
 * status, and these objects are reconciled at its steps, not all at once. The StatefulSet's size is the
 * planner's decision of this reconcile ({@link #reconcile} puts it in the context, where {@code desired()}
 * reads it); nothing is written while the cluster is paused; the ConfigMap is reconciled a second time
 * once status records the end of the bootstrap; the CronJob exists only with {@code spec.backup}. A workflow,
 * even explicitly invoked, reconciles its whole graph at once from the primary as JOSDK holds it, so each
 * of these would need a condition or a second invocation; calling each dependent where the step is says
 * it where it happens.
 *
 * <p>Every dependent gets the cluster as the reconciler sees it ({@code status} of this reconcile, which
 * the model reads, e.g. {@code bootstrapReplicas} and {@code bootstrappedAt}).
 */
final class OwnedResources {
    /** Context key: the StatefulSet size this reconcile applies (the PodDisruptionBudget is sized from it). */
    static final String STATEFUL_SET_REPLICAS = "queenkv.io/statefulSetReplicas";

    private final Owned<ConfigMap> configMap = new Owned<>(ConfigMap.class, "configmap", Names::configMap,
            (c, ctx) -> ConfigMapModel.build(c));
    private final Owned<Service> peerService = new Owned<>(Service.class, "peer-service", Names::peersService,
            (c, ctx) -> ServiceModel.peers(c));
    private final Owned<Service> clientService = new Owned<>(Service.class, "client-service", Names::clientService,
            (c, ctx) -> ServiceModel.client(c));
    private final Owned<StatefulSet> statefulSet = new Owned<>(StatefulSet.class, "statefulset", Names::statefulSet,
            (c, ctx) -> StatefulSetModel.build(c, statefulSetReplicas(ctx)));
    private final Owned<PodDisruptionBudget> podDisruptionBudget = new Owned<>(PodDisruptionBudget.class, "poddisruptionbudget",
            Names::podDisruptionBudget, (c, ctx) -> PodDisruptionBudgetModel.build(c, statefulSetReplicas(ctx)));
    private final Owned<CronJob> backupCronJob = new Owned<>(CronJob.class, "backup-cronjob", Names::backupCronJob,
            (c, ctx) -> BackupModel.cronJob(c, BackupModel.spec(c).orElseThrow()));

    private final Certificate certificate = new Certificate();
    private volatile boolean certificateWatched;

    /** The informers of the owned kinds (the two Services share one); cert-manager's Certificate's comes later ({@link #reconcileCertificate}). */
    List<EventSource<?, QueenKvCluster>> eventSources(EventSourceContext<QueenKvCluster> context) {
        var services = peerService.eventSource(context).orElseThrow();
        clientService.setEventSource(services);
        return List.of(configMap.eventSource(context).orElseThrow(), services, statefulSet.eventSource(context).orElseThrow(),
                podDisruptionBudget.eventSource(context).orElseThrow(), backupCronJob.eventSource(context).orElseThrow());
    }

    /**
     * The StatefulSet's {@code spec.replicas} as the API server holds it now, or null when there is none yet: read
     * afresh, not from the informer, because it bounds a shrink while no leader is visible, and a size someone set
     * a moment ago may not have reached the cache.
     */
    Integer statefulSetReplicas(QueenKvCluster c, Context<QueenKvCluster> context) {
        StatefulSet current = context.getClient().apps().statefulSets().inNamespace(Model.namespace(c))
                .withName(Names.statefulSet(Model.name(c))).get();
        return current == null || current.getSpec() == null ? null : current.getSpec().getReplicas();
    }

    /**
     * The ConfigMap, the Services (first, so that pods find their peers' DNS names as they start), the
     * StatefulSet at {@code statefulSetReplicas} (the planner's size) and the PodDisruptionBudget.
     */
    void reconcile(QueenKvCluster c, Context<QueenKvCluster> context, int statefulSetReplicas) {
        context.managedWorkflowAndDependentResourceContext().put(STATEFUL_SET_REPLICAS, statefulSetReplicas);
        for (Owned<?> d : List.of(configMap, peerService, clientService, statefulSet, podDisruptionBudget)) d.reconcile(c, context);
    }

    /** The ConfigMap alone (once the bootstrap is recorded, new containers read {@code existing} from it). */
    void reconcileConfigMap(QueenKvCluster c, Context<QueenKvCluster> context) {
        configMap.reconcile(c, context);
    }

    /** {@code spec.backup}'s CronJob; without it, the CronJob is deleted. */
    void reconcileBackupCronJob(QueenKvCluster c, Context<QueenKvCluster> context) {
        if (BackupModel.spec(c).isPresent()) backupCronJob.reconcile(c, context);
        else if (backupCronJob.getSecondaryResource(c, context).isPresent()) backupCronJob.delete(c, context);
    }

    /**
     * cert-manager's Certificate ({@code spec.tls.issuerRef}); deleted once the cluster no longer names an issuer. Its CRD
     * is installed with cert-manager, not with the operator: its informer starts with the first cluster that asks for a
     * Certificate (JOSDK's dynamic registration), so an operator without cert-manager starts and serves every other
     * cluster. (An operator started since, and never asked for one, does not watch, so does not delete, a Certificate
     * left from before: the README says so.)
     */
    void reconcileCertificate(QueenKvCluster c, Context<QueenKvCluster> context) {
        if (TlsModel.mode(Model.spec(c)) == io.queenkv.operator.crd.TlsMode.CertManager) {
            if (!certificateWatched) watchCertificates(context);
            certificate.reconcile(c, context);
        } else if (certificateWatched && certificate.getSecondaryResource(c, context).isPresent()) {
            // No longer asked for: cert-manager would keep rewriting the Secret the operator (or the user) now writes.
            certificate.delete(c, context);
        }
    }

    private synchronized void watchCertificates(Context<QueenKvCluster> context) {
        if (certificateWatched) return;
        var sources = context.eventSourceRetriever();
        var source = certificate.eventSource(sources.eventSourceContextForDynamicRegistration()).orElseThrow();
        try {
            sources.dynamicallyRegisterEventSource(source);
        } catch (RuntimeException e) {
            sources.dynamicallyDeRegisterEventSource(source.name());
            throw new IllegalStateException("cannot watch cert-manager's Certificates (is cert-manager installed? its CRD "
                    + TlsModel.CERTIFICATE_KIND.toLowerCase() + "s." + TlsModel.CERT_MANAGER_GROUP + " must exist for spec.tls.issuerRef)", e);
        }
        certificateWatched = true;
    }

    private static int statefulSetReplicas(Context<QueenKvCluster> context) {
        return context.managedWorkflowAndDependentResourceContext().getMandatory(STATEFUL_SET_REPLICAS, Integer.class);
    }

    /** The Certificate {@link TlsModel#certificate} describes, a generic resource: the operator has no cert-manager classes. */
    static final class Certificate extends GenericKubernetesDependentResource<QueenKvCluster>
            implements Creator<GenericKubernetesResource, QueenKvCluster>, Updater<GenericKubernetesResource, QueenKvCluster>,
            GarbageCollected<QueenKvCluster> {
        Certificate() {
            super(new GroupVersionKind(TlsModel.CERT_MANAGER_GROUP, "v1", TlsModel.CERTIFICATE_KIND), "certificate");
        }

        @Override
        protected GenericKubernetesResource desired(QueenKvCluster c, Context<QueenKvCluster> context) {
            return TlsModel.certificate(c);
        }

        @Override
        protected ResourceID targetSecondaryResourceID(QueenKvCluster c, Context<QueenKvCluster> context) {
            return new ResourceID(Names.certificate(Model.name(c)), Model.namespace(c));
        }

        @Override
        protected InformerEventSourceConfiguration.Builder<GenericKubernetesResource> informerConfigurationBuilder(
                EventSourceContext<QueenKvCluster> context) {
            return super.informerConfigurationBuilder(context).withLabelSelector(Labels.MANAGED_BY + "=" + Labels.OPERATOR);
        }
    }

    /** One owned object: its name from the cluster's, its desired state from a model builder. */
    static final class Owned<R extends HasMetadata> extends CRUDKubernetesDependentResource<R, QueenKvCluster> {
        private final Function<String, String> name;
        private final BiFunction<QueenKvCluster, Context<QueenKvCluster>, R> model;

        Owned(Class<R> type, String dependentName, Function<String, String> name,
              BiFunction<QueenKvCluster, Context<QueenKvCluster>, R> model) {
            super(type, dependentName);
            this.name = name;
            this.model = model;
        }

        @Override
        protected R desired(QueenKvCluster c, Context<QueenKvCluster> context) {
            return model.apply(c, context);
        }

        /** By name, without building the desired object (the CronJob's needs {@code spec.backup}, which may be gone). */
        @Override
        protected ResourceID targetSecondaryResourceID(QueenKvCluster c, Context<QueenKvCluster> context) {
            return new ResourceID(name.apply(Model.name(c)), Model.namespace(c));
        }

        /** Only what the operator labels as its own is cached. */
        @Override
        protected InformerEventSourceConfiguration.Builder<R> informerConfigurationBuilder(EventSourceContext<QueenKvCluster> context) {
            return super.informerConfigurationBuilder(context).withLabelSelector(Labels.MANAGED_BY + "=" + Labels.OPERATOR);
        }
    }
}
