//! TCP/IP, UDP/IP and ALPC.
//!
//! Written from the kernel's MOF (`wmicore.mof`; see the parent module for the sources and
//! the rules that turn its qualifiers into types); task and opcode names as TraceEvent prints
//! them.

use super::{
    event, ipv4, ipv6, pointer, port, sint16, uint16, uint32, utf16z, Field, KernelEvent, ALPC,
    TCP_IP, UDP_IP,
};

// ---- TcpIp `9a280ac0-c8e0-11d1-84e2-00c04fb998a2` ----

/// `TcpIp_V0_TypeGroup1`, version 0, event types 10, 11, 12, 13, 14, 15.
const TCP_IP_V0_TYPE_GROUP1: &[Field] = &[
    ipv4("daddr"),
    ipv4("saddr"),
    port("dport"),
    port("sport"),
    uint32("size"),
    uint32("PID"),
];

/// `TcpIp_V1_Receive`, version 1, event types 11.
const TCP_IP_V1_RECEIVE: &[Field] = &[
    uint32("PID"),
    uint32("size"),
    ipv4("daddr"),
    ipv4("saddr"),
    port("dport"),
    port("sport"),
    pointer("connid"),
    uint32("seqnum"),
];

/// `TcpIp_V1_TypeGroup1`, version 1, event types 13, 14, 16.
const TCP_IP_V1_TYPE_GROUP1: &[Field] = &[
    uint32("PID"),
    uint32("size"),
    ipv4("daddr"),
    ipv4("saddr"),
    port("dport"),
    port("sport"),
    pointer("connid"),
    uint32("seqnum"),
];

/// `TcpIp_V1_TypeGroup2`, version 1, event types 12, 15.
const TCP_IP_V1_TYPE_GROUP2: &[Field] = &[
    uint32("PID"),
    uint32("size"),
    ipv4("daddr"),
    ipv4("saddr"),
    port("dport"),
    port("sport"),
    uint16("mss"),
    uint16("sackopt"),
    uint16("tsopt"),
    uint16("wsopt"),
    uint32("rcvwin"),
    sint16("rcvwinscale"),
    sint16("sndwinscale"),
    pointer("connid"),
    uint32("seqnum"),
];

/// `TcpIp_V1_Fail`, version 1, event types 17.
const TCP_IP_V1_FAIL: &[Field] = &[uint32("Proto")];

/// `TcpIp_V1_Send`, version 1, event types 10.
const TCP_IP_V1_SEND: &[Field] = &[
    uint32("PID"),
    uint32("size"),
    ipv4("daddr"),
    ipv4("saddr"),
    port("dport"),
    port("sport"),
    uint32("startime"),
    uint32("endtime"),
    pointer("connid"),
    uint32("seqnum"),
];

/// `TcpIp_V1_TypeGroup3`, version 1, event types 18, 19, 20, 21, 22.
const TCP_IP_V1_TYPE_GROUP3: &[Field] = &[
    uint32("PID"),
    uint32("size"),
    ipv4("daddr"),
    ipv4("saddr"),
    port("dport"),
    port("sport"),
    pointer("connid"),
    uint32("seqnum"),
];

/// `TcpIp_SendIPV4`, version 2, event types 10.
const TCP_IP_SEND_IPV4: &[Field] = &[
    uint32("PID"),
    uint32("size"),
    ipv4("daddr"),
    ipv4("saddr"),
    port("dport"),
    port("sport"),
    uint32("startime"),
    uint32("endtime"),
    uint32("seqnum"),
    pointer("connid"),
];

/// `TcpIp_TypeGroup1`, version 2, event types 11, 13, 14, 16, 18.
const TCP_IP_TYPE_GROUP1: &[Field] = &[
    uint32("PID"),
    uint32("size"),
    ipv4("daddr"),
    ipv4("saddr"),
    port("dport"),
    port("sport"),
    uint32("seqnum"),
    pointer("connid"),
];

/// `TcpIp_TypeGroup2`, version 2, event types 12, 15.
const TCP_IP_TYPE_GROUP2: &[Field] = &[
    uint32("PID"),
    uint32("size"),
    ipv4("daddr"),
    ipv4("saddr"),
    port("dport"),
    port("sport"),
    uint16("mss"),
    uint16("sackopt"),
    uint16("tsopt"),
    uint16("wsopt"),
    uint32("rcvwin"),
    sint16("rcvwinscale"),
    sint16("sndwinscale"),
    uint32("seqnum"),
    pointer("connid"),
];

/// `TcpIp_Fail`, version 2, event types 17.
const TCP_IP_FAIL: &[Field] = &[uint16("Proto"), uint16("FailureCode")];

/// `TcpIp_SendIPV6`, version 2, event types 26.
const TCP_IP_SEND_IPV6: &[Field] = &[
    uint32("PID"),
    uint32("size"),
    ipv6("daddr"),
    ipv6("saddr"),
    port("dport"),
    port("sport"),
    uint32("startime"),
    uint32("endtime"),
    uint32("seqnum"),
    pointer("connid"),
];

/// `TcpIp_TypeGroup3`, version 2, event types 27, 29, 30, 32, 34.
const TCP_IP_TYPE_GROUP3: &[Field] = &[
    uint32("PID"),
    uint32("size"),
    ipv6("daddr"),
    ipv6("saddr"),
    port("dport"),
    port("sport"),
    uint32("seqnum"),
    pointer("connid"),
];

/// `TcpIp_TypeGroup4`, version 2, event types 28, 31.
const TCP_IP_TYPE_GROUP4: &[Field] = &[
    uint32("PID"),
    uint32("size"),
    ipv6("daddr"),
    ipv6("saddr"),
    port("dport"),
    port("sport"),
    uint16("mss"),
    uint16("sackopt"),
    uint16("tsopt"),
    uint16("wsopt"),
    uint32("rcvwin"),
    sint16("rcvwinscale"),
    sint16("sndwinscale"),
    uint32("seqnum"),
    pointer("connid"),
];

/// The events of `TcpIp`, by event type and version.
#[rustfmt::skip]
pub(super) static TCP_IP_EVENTS: [KernelEvent; 36] = [
    event(TCP_IP, 10, 0, "TcpIp", "Send", "TcpIp_V0_TypeGroup1", TCP_IP_V0_TYPE_GROUP1),
    event(TCP_IP, 10, 1, "TcpIp", "Send", "TcpIp_V1_Send", TCP_IP_V1_SEND),
    event(TCP_IP, 10, 2, "TcpIp", "Send", "TcpIp_SendIPV4", TCP_IP_SEND_IPV4),
    event(TCP_IP, 11, 0, "TcpIp", "Recv", "TcpIp_V0_TypeGroup1", TCP_IP_V0_TYPE_GROUP1),
    event(TCP_IP, 11, 1, "TcpIp", "Recv", "TcpIp_V1_Receive", TCP_IP_V1_RECEIVE),
    event(TCP_IP, 11, 2, "TcpIp", "Recv", "TcpIp_TypeGroup1", TCP_IP_TYPE_GROUP1),
    event(TCP_IP, 12, 0, "TcpIp", "Connect", "TcpIp_V0_TypeGroup1", TCP_IP_V0_TYPE_GROUP1),
    event(TCP_IP, 12, 1, "TcpIp", "Connect", "TcpIp_V1_TypeGroup2", TCP_IP_V1_TYPE_GROUP2),
    event(TCP_IP, 12, 2, "TcpIp", "Connect", "TcpIp_TypeGroup2", TCP_IP_TYPE_GROUP2),
    event(TCP_IP, 13, 0, "TcpIp", "Disconnect", "TcpIp_V0_TypeGroup1", TCP_IP_V0_TYPE_GROUP1),
    event(TCP_IP, 13, 1, "TcpIp", "Disconnect", "TcpIp_V1_TypeGroup1", TCP_IP_V1_TYPE_GROUP1),
    event(TCP_IP, 13, 2, "TcpIp", "Disconnect", "TcpIp_TypeGroup1", TCP_IP_TYPE_GROUP1),
    event(TCP_IP, 14, 0, "TcpIp", "Retransmit", "TcpIp_V0_TypeGroup1", TCP_IP_V0_TYPE_GROUP1),
    event(TCP_IP, 14, 1, "TcpIp", "Retransmit", "TcpIp_V1_TypeGroup1", TCP_IP_V1_TYPE_GROUP1),
    event(TCP_IP, 14, 2, "TcpIp", "Retransmit", "TcpIp_TypeGroup1", TCP_IP_TYPE_GROUP1),
    event(TCP_IP, 15, 0, "TcpIp", "Accept", "TcpIp_V0_TypeGroup1", TCP_IP_V0_TYPE_GROUP1),
    event(TCP_IP, 15, 1, "TcpIp", "Accept", "TcpIp_V1_TypeGroup2", TCP_IP_V1_TYPE_GROUP2),
    event(TCP_IP, 15, 2, "TcpIp", "Accept", "TcpIp_TypeGroup2", TCP_IP_TYPE_GROUP2),
    event(TCP_IP, 16, 1, "TcpIp", "Reconnect", "TcpIp_V1_TypeGroup1", TCP_IP_V1_TYPE_GROUP1),
    event(TCP_IP, 16, 2, "TcpIp", "Reconnect", "TcpIp_TypeGroup1", TCP_IP_TYPE_GROUP1),
    event(TCP_IP, 17, 1, "TcpIp", "Fail", "TcpIp_V1_Fail", TCP_IP_V1_FAIL),
    event(TCP_IP, 17, 2, "TcpIp", "Fail", "TcpIp_Fail", TCP_IP_FAIL),
    event(TCP_IP, 18, 1, "TcpIp", "TCPCopy", "TcpIp_V1_TypeGroup3", TCP_IP_V1_TYPE_GROUP3),
    event(TCP_IP, 18, 2, "TcpIp", "TCPCopy", "TcpIp_TypeGroup1", TCP_IP_TYPE_GROUP1),
    event(TCP_IP, 19, 1, "TcpIp", "ARPCopy", "TcpIp_V1_TypeGroup3", TCP_IP_V1_TYPE_GROUP3),
    event(TCP_IP, 20, 1, "TcpIp", "FullACK", "TcpIp_V1_TypeGroup3", TCP_IP_V1_TYPE_GROUP3),
    event(TCP_IP, 21, 1, "TcpIp", "PartACK", "TcpIp_V1_TypeGroup3", TCP_IP_V1_TYPE_GROUP3),
    event(TCP_IP, 22, 1, "TcpIp", "DupACK", "TcpIp_V1_TypeGroup3", TCP_IP_V1_TYPE_GROUP3),
    event(TCP_IP, 26, 2, "TcpIp", "SendIPV6", "TcpIp_SendIPV6", TCP_IP_SEND_IPV6),
    event(TCP_IP, 27, 2, "TcpIp", "RecvIPV6", "TcpIp_TypeGroup3", TCP_IP_TYPE_GROUP3),
    event(TCP_IP, 28, 2, "TcpIp", "ConnectIPV6", "TcpIp_TypeGroup4", TCP_IP_TYPE_GROUP4),
    event(TCP_IP, 29, 2, "TcpIp", "DisconnectIPV6", "TcpIp_TypeGroup3", TCP_IP_TYPE_GROUP3),
    event(TCP_IP, 30, 2, "TcpIp", "RetransmitIPV6", "TcpIp_TypeGroup3", TCP_IP_TYPE_GROUP3),
    event(TCP_IP, 31, 2, "TcpIp", "AcceptIPV6", "TcpIp_TypeGroup4", TCP_IP_TYPE_GROUP4),
    event(TCP_IP, 32, 2, "TcpIp", "ReconnectIPV6", "TcpIp_TypeGroup3", TCP_IP_TYPE_GROUP3),
    event(TCP_IP, 34, 2, "TcpIp", "TCPCopyIPV6", "TcpIp_TypeGroup3", TCP_IP_TYPE_GROUP3),
];

// ---- UdpIp `bf3a50c5-a9c9-4988-a005-2df0b7c80f80` ----

/// `UdpIp_V0_TypeGroup1`, version 0, event types 10, 11.
const UDP_IP_V0_TYPE_GROUP1: &[Field] = &[
    pointer("context"),
    ipv4("saddr"),
    port("sport"),
    uint16("size"),
    ipv4("daddr"),
    port("dport"),
    uint16("dsize"),
];

/// `UdpIp_V1_TypeGroup1`, version 1, event types 10, 11.
const UDP_IP_V1_TYPE_GROUP1: &[Field] = &[
    uint32("PID"),
    uint32("size"),
    ipv4("daddr"),
    ipv4("saddr"),
    port("dport"),
    port("sport"),
];

/// `UdpIp_TypeGroup1`, version 2, event types 10, 11.
const UDP_IP_TYPE_GROUP1: &[Field] = &[
    uint32("PID"),
    uint32("size"),
    ipv4("daddr"),
    ipv4("saddr"),
    port("dport"),
    port("sport"),
    uint32("seqnum"),
    pointer("connid"),
];

/// `UdpIp_Fail`, version 2, event types 17.
const UDP_IP_FAIL: &[Field] = &[uint16("Proto"), uint16("FailureCode")];

/// `UdpIp_TypeGroup2`, version 2, event types 26, 27.
const UDP_IP_TYPE_GROUP2: &[Field] = &[
    uint32("PID"),
    uint32("size"),
    ipv6("daddr"),
    ipv6("saddr"),
    port("dport"),
    port("sport"),
    uint32("seqnum"),
    pointer("connid"),
];

/// The events of `UdpIp`, by event type and version.
#[rustfmt::skip]
pub(super) static UDP_IP_EVENTS: [KernelEvent; 9] = [
    event(UDP_IP, 10, 0, "UdpIp", "Send", "UdpIp_V0_TypeGroup1", UDP_IP_V0_TYPE_GROUP1),
    event(UDP_IP, 10, 1, "UdpIp", "Send", "UdpIp_V1_TypeGroup1", UDP_IP_V1_TYPE_GROUP1),
    event(UDP_IP, 10, 2, "UdpIp", "Send", "UdpIp_TypeGroup1", UDP_IP_TYPE_GROUP1),
    event(UDP_IP, 11, 0, "UdpIp", "Recv", "UdpIp_V0_TypeGroup1", UDP_IP_V0_TYPE_GROUP1),
    event(UDP_IP, 11, 1, "UdpIp", "Recv", "UdpIp_V1_TypeGroup1", UDP_IP_V1_TYPE_GROUP1),
    event(UDP_IP, 11, 2, "UdpIp", "Recv", "UdpIp_TypeGroup1", UDP_IP_TYPE_GROUP1),
    event(UDP_IP, 17, 2, "UdpIp", "Fail", "UdpIp_Fail", UDP_IP_FAIL),
    event(UDP_IP, 26, 2, "UdpIp", "SendIPV6", "UdpIp_TypeGroup2", UDP_IP_TYPE_GROUP2),
    event(UDP_IP, 27, 2, "UdpIp", "RecvIPV6", "UdpIp_TypeGroup2", UDP_IP_TYPE_GROUP2),
];

// ---- ALPC `45d8cccd-539f-4b72-a8b7-5c683142609a` ----

/// `ALPC_Send_Message`, version 2, event types 33.
const ALPC_SEND_MESSAGE: &[Field] = &[uint32("MessageID")];

/// `ALPC_Receive_Message`, version 2, event types 34.
const ALPC_RECEIVE_MESSAGE: &[Field] = &[uint32("MessageID")];

/// `ALPC_Wait_For_Reply`, version 2, event types 35.
const ALPC_WAIT_FOR_REPLY: &[Field] = &[uint32("MessageID")];

/// `ALPC_Wait_For_New_Message`, version 2, event types 36.
const ALPC_WAIT_FOR_NEW_MESSAGE: &[Field] = &[uint32("IsServerPort"), utf16z("PortName")];

/// `ALPC_Unwait`, version 2, event types 37.
const ALPC_UNWAIT: &[Field] = &[uint32("Status")];

/// The events of `ALPC`, by event type and version.
#[rustfmt::skip]
pub(super) static ALPC_EVENTS: [KernelEvent; 5] = [
    event(ALPC, 33, 2, "ALPC", "SendMessage", "ALPC_Send_Message", ALPC_SEND_MESSAGE),
    event(ALPC, 34, 2, "ALPC", "ReceiveMessage", "ALPC_Receive_Message", ALPC_RECEIVE_MESSAGE),
    event(ALPC, 35, 2, "ALPC", "WaitForReply", "ALPC_Wait_For_Reply", ALPC_WAIT_FOR_REPLY),
    event(ALPC, 36, 2, "ALPC", "WaitForNewMessage", "ALPC_Wait_For_New_Message", ALPC_WAIT_FOR_NEW_MESSAGE),
    event(ALPC, 37, 2, "ALPC", "Unwait", "ALPC_Unwait", ALPC_UNWAIT),
];
