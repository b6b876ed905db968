//! Rebuilding the instance hierarchy of a trace: which transaction each instance event belongs
//! to, and which transaction is its parent, in caller-sized storage.

use crate::read::error::InstanceTreeFull;
use crate::wire::guid::Guid;
use crate::wire::headers::event_instance_guid_header::EventInstanceGuidHeader;

/// One instance (transaction) of an event trace class: "InstanceId labels the event with its
/// class GUID", so the pair names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct InstanceKey {
    /// The event trace class GUID (`Guid` of the instance event's header).
    pub class_guid: Guid,
    /// `InstanceId`, from `CreateTraceInstanceId`.
    pub instance_id: u32,
}

impl InstanceKey {
    /// The instance an event belongs to.
    pub fn of(event: &EventInstanceGuidHeader) -> Self {
        Self {
            class_guid: event.header.guid.guid(),
            instance_id: event.instance_id,
        }
    }

    /// The instance an event names as its parent: `ParentGuid` and `ParentInstanceId`, or
    /// `None` when both are zero (the event was traced without a parent).
    pub fn parent_of(event: &EventInstanceGuidHeader) -> Option<Self> {
        if event.parent_instance_id == 0 && event.parent_guid == Guid::NIL {
            None
        } else {
            Some(Self {
                class_guid: event.parent_guid,
                instance_id: event.parent_instance_id,
            })
        }
    }
}

/// An instance seen in a trace, with its parent and how many events it has.
///
/// `#[non_exhaustive]`: the tree makes these, and later versions may count more about an
/// instance.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub struct InstanceNode {
    /// The instance.
    pub key: InstanceKey,
    /// Its parent, as its first event that names one says.
    pub parent: Option<InstanceKey>,
    /// How many of the events added belong to it (the count stops at `u32::MAX`).
    pub events: u32,
    /// How many of its events named a different parent than [`parent`](Self::parent) (the count
    /// stops at `u32::MAX`).
    pub conflicting_parents: u32,
}

/// The instance hierarchy of a walked set of buffers, in storage for `CAPACITY` instances.
///
/// Add every instance event ([`add`](Self::add)) in any order, then ask for an instance's
/// parent, children, roots or depth. Parents are matched by (`ParentGuid`, `ParentInstanceId`)
/// against (`Guid`, `InstanceId`) of the other events; a parent never seen is reported as
/// missing (the instance is then a root), never invented. Nothing allocates; lookups scan the
/// table, so they cost `O(CAPACITY)` each.
///
/// ```
/// use etw_classic::{EventInstanceGuidHeader, Guid, GuidOrPtr, InstanceTree, read::InstanceKey};
///
/// let class = Guid::from_fields(0x1234_5678, 1, 2, [3; 8]);
/// let mut parent = EventInstanceGuidHeader::default();
/// parent.header.guid = GuidOrPtr::from_guid(class);
/// parent.instance_id = 1;
/// let mut child = parent;
/// child.instance_id = 2;
/// child.parent_guid = class;
/// child.parent_instance_id = 1;
///
/// let mut tree = InstanceTree::<8>::new();
/// tree.add(&child)?;
/// tree.add(&parent)?;
/// let root = InstanceKey { class_guid: class, instance_id: 1 };
/// assert_eq!(tree.roots().map(|node| node.key).collect::<Vec<_>>(), [root]);
/// assert_eq!(tree.children(root).count(), 1);
/// assert_eq!(tree.depth(InstanceKey::of(&child)), Some(1));
/// # Ok::<(), etw_classic::read::InstanceTreeFull>(())
/// ```
#[derive(Clone, Debug, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct InstanceTree<const CAPACITY: usize> {
    nodes: heapless::Vec<InstanceNode, CAPACITY>,
}

impl<const CAPACITY: usize> InstanceTree<CAPACITY> {
    /// An empty tree.
    pub const fn new() -> Self {
        Self {
            nodes: heapless::Vec::new(),
        }
    }

    /// Adds one instance event: creates its instance if new, counts the event, and records the
    /// parent it names (the first one named wins; later different ones are counted in
    /// [`InstanceNode::conflicting_parents`]). Returns the event's instance.
    ///
    /// # Errors
    /// [`InstanceTreeFull`] when the event's instance is new and the tree already holds
    /// `CAPACITY` instances; the tree is unchanged then.
    pub fn add(
        &mut self,
        event: &EventInstanceGuidHeader,
    ) -> Result<InstanceKey, InstanceTreeFull> {
        let key = InstanceKey::of(event);
        let parent = InstanceKey::parent_of(event);
        if let Some(node) = self.nodes.iter_mut().find(|node| node.key == key) {
            node.events = node.events.saturating_add(1);
            match (node.parent, parent) {
                (None, Some(_)) => node.parent = parent,
                (Some(known), Some(named)) if known != named => {
                    node.conflicting_parents = node.conflicting_parents.saturating_add(1);
                }
                _ => {}
            }
            return Ok(key);
        }
        self.nodes
            .push(InstanceNode {
                key,
                parent,
                events: 1,
                conflicting_parents: 0,
            })
            .map_err(|_| InstanceTreeFull { capacity: CAPACITY })?;
        Ok(key)
    }

    /// Every instance, in the order their first event was added.
    pub fn nodes(&self) -> &[InstanceNode] {
        &self.nodes
    }

    /// The instance `key`, if any event of it was added.
    pub fn get(&self, key: InstanceKey) -> Option<&InstanceNode> {
        self.nodes.iter().find(|node| node.key == key)
    }

    /// The parent of instance `key`, if it names one and that one is in the tree.
    pub fn parent(&self, key: InstanceKey) -> Option<&InstanceNode> {
        self.get(key)
            .and_then(|node| node.parent)
            .and_then(|parent| self.get(parent))
    }

    /// The instances whose parent is `key`, in the order they were added.
    pub fn children(&self, key: InstanceKey) -> impl Iterator<Item = &InstanceNode> + '_ {
        self.nodes
            .iter()
            .filter(move |node| node.parent == Some(key))
    }

    /// The instances with no parent in the tree (none named, or the one named was never
    /// added), in the order they were added.
    pub fn roots(&self) -> impl Iterator<Item = &InstanceNode> + '_ {
        self.nodes
            .iter()
            .filter(|node| node.parent.is_none_or(|parent| self.get(parent).is_none()))
    }

    /// How many ancestors instance `key` has in the tree (0 for a root); `None` if `key` is not
    /// in the tree or its chain of parents loops (possible only in corrupt traces).
    pub fn depth(&self, key: InstanceKey) -> Option<usize> {
        let mut node = self.get(key)?;
        for depth in 0..=self.nodes.len() {
            match node.parent.and_then(|parent| self.get(parent)) {
                Some(parent) => node = parent,
                None => return Some(depth),
            }
        }
        None
    }
}
