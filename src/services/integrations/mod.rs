//! What other systems build on: signed webhooks (subscriptions, their outbox queue and
//! deliveries) and the HTML pages club websites embed.

pub mod embed;
pub mod print;
pub mod webhook_dns;
pub mod webhook_manage;
pub mod webhook_queue;
pub mod webhooks;
