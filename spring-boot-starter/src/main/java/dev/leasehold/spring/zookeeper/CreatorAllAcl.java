package dev.leasehold.spring.zookeeper;

import java.util.List;
import org.apache.curator.framework.api.ACLProvider;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;

/**
 * {@code leasehold.zookeeper.auth.acl=creator-all}: every node the starter's client creates (election nodes, and the
 * parents it creates on the way) may be read, written and deleted only by the identity that authenticated the
 * client. Another client of the ensemble can then neither add a node to an election (and so stop it) nor delete one.
 */
final class CreatorAllAcl implements ACLProvider {

    @Override
    public List<ACL> getDefaultAcl() {
        return ZooDefs.Ids.CREATOR_ALL_ACL;
    }

    @Override
    public List<ACL> getAclForPath(String path) {
        return ZooDefs.Ids.CREATOR_ALL_ACL;
    }
}
