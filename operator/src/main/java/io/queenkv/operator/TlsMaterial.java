package io.queenkv.operator;

import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;
import java.util.Optional;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.queenkv.operator.crd.QueenKvCluster;
import io.queenkv.operator.model.Model;
import io.queenkv.operator.model.Names;
import io.queenkv.operator.model.TlsModel;
import io.queenkv.operator.tls.CertificateAuthority;
import io.queenkv.operator.tls.IssuedCertificate;

/**
 * The reconcile step that makes the nodes' TLS material exist ({@link TlsModel} builds it). Mode Operator:
 * the CA Secret is created once and never rewritten (a new CA would split the group: members trust only
 * the CA they started with); the node Secret is written only when {@link TlsModel#reissueReason} says so,
 * so a steady cluster costs two Secret reads and no key generation. Mode CertManager: the Certificate is an
 * owned dependent resource ({@link OwnedResources#reconcileCertificate}), reconciled by the caller. Modes Secret and
 * Disabled: nothing to do.
 */
final class TlsMaterial {
    private static final Logger LOG = LoggerFactory.getLogger(TlsMaterial.class);

    private final Clock clock;
    private final SecureRandom random = new SecureRandom();

    TlsMaterial(Clock clock) {
        this.clock = clock;
    }

    void ensure(QueenKvCluster c, KubernetesClient client, ResourceApplier applier) {
        switch (TlsModel.mode(Model.spec(c))) {
            case Operator -> ensureOperatorCa(c, client, applier);
            case CertManager, Secret, Disabled -> { }
        }
    }

    private void ensureOperatorCa(QueenKvCluster c, KubernetesClient client, ResourceApplier applier) {
        String ns = Model.namespace(c);
        Instant now = clock.instant();
        Secret caSecret = client.secrets().inNamespace(ns).withName(Names.caSecret(Model.name(c))).get();
        Optional<CertificateAuthority> existing = caSecret == null ? Optional.empty() : TlsModel.ca(caSecret);
        CertificateAuthority ca;
        if (existing.isPresent()) {
            ca = existing.get();
        } else {
            if (caSecret != null)
                throw new IllegalStateException("Secret " + Names.caSecret(Model.name(c)) + " holds no CA (" + TlsModel.CA_CERT_KEY + ", "
                        + TlsModel.CA_KEY_KEY + "); deleting it makes a new CA, after which every pod must be restarted");
            ca = TlsModel.newCa(c, now, random);
            client.resource(TlsModel.caSecret(c, ca)).create();
            LOG.info("{}/{}: created the cluster CA (valid until {})", ns, Model.name(c), ca.certificate().getNotAfter().toInstant());
        }
        Secret nodeSecret = client.secrets().inNamespace(ns).withName(Names.tlsSecret(Model.name(c))).get();
        Optional<String> reason = TlsModel.reissueReason(c, nodeSecret, ca, now);
        if (reason.isEmpty()) return;
        IssuedCertificate node = TlsModel.issueNodeCertificate(c, ca, now, random);
        applier.apply(TlsModel.nodeSecret(c, ca, node));
        LOG.info("{}/{}: issued the node certificate (valid until {}): {}", ns, Model.name(c), node.certificate().getNotAfter().toInstant(),
                reason.get());
    }
}
