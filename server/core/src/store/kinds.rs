//! The closed sets of values stored as text: a status, a scope, a kind. String ↔ enum happens
//! here and nowhere else; a value the code does not know is an error naming the value (and, for
//! reads by id, the row), never a silent fallback.

use crate::protocol::{ApprovalDecision, PlanDecision};

pub use crate::protocol::UnknownValue;

/// A text column's enum: `AsRef<str>`/`Display` give the stored text, `FromStr`/`TryFrom<String>`
/// read it back (the latter lets `#[sqlx(try_from = "String")]` decode rows into it).
macro_rules! text_enum {
    ($(#[$meta:meta])* $name:ident: $what:literal { $($(#[$vmeta:meta])* $variant:ident),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, strum::AsRefStr, strum::IntoStaticStr, strum::EnumString, strum::Display, strum::VariantArray)]
        #[strum(serialize_all = "snake_case")]
        pub enum $name { $($(#[$vmeta])* $variant),+ }

        impl $name {
            /// The stored text.
            pub fn as_str(self) -> &'static str {
                self.into()
            }
        }

        impl TryFrom<String> for $name {
            type Error = UnknownValue;
            fn try_from(s: String) -> Result<Self, UnknownValue> {
                s.parse().map_err(|_| UnknownValue { what: $what, value: s })
            }
        }
    };
}

text_enum!(
    /// An approval's state: pending, then the answer it got, or expired.
    ApprovalStatus: "approval status" { Pending, Once, Session, Directory, Deny, Prefix, PrefixWorkspace, Expired }
);

impl From<ApprovalDecision> for ApprovalStatus {
    fn from(d: ApprovalDecision) -> Self {
        match d {
            ApprovalDecision::Once => Self::Once,
            ApprovalDecision::Session => Self::Session,
            ApprovalDecision::Directory => Self::Directory,
            ApprovalDecision::Deny => Self::Deny,
            ApprovalDecision::Prefix => Self::Prefix,
            ApprovalDecision::PrefixWorkspace => Self::PrefixWorkspace,
        }
    }
}

text_enum!(
    /// A plan's state: pending review, decided, and `implementing` once the build run started.
    PlanStatus: "plan status" { Pending, Approved, Feedback, Skipped, Unavailable, Implementing }
);

impl From<PlanDecision> for PlanStatus {
    fn from(d: PlanDecision) -> Self {
        match d {
            PlanDecision::Approved => Self::Approved,
            PlanDecision::Feedback => Self::Feedback,
            PlanDecision::Skipped => Self::Skipped,
            PlanDecision::Unavailable => Self::Unavailable,
        }
    }
}

text_enum!(
    /// A question's state.
    QuestionStatus: "question status" { Pending, Answered, Expired }
);

#[cfg(test)]
mod tests {
    use super::*;
    use strum::VariantArray;

    fn round_trips<T>(all: &[T])
    where
        T: AsRef<str> + TryFrom<String, Error = UnknownValue> + PartialEq + std::fmt::Debug + Copy,
    {
        for v in all {
            assert_eq!(T::try_from(v.as_ref().to_string()), Ok(*v));
        }
        let e = T::try_from("bogus".to_string()).err();
        assert_eq!(e.map(|e| e.value), Some("bogus".to_string()));
    }

    #[test]
    fn every_stored_value_round_trips_and_unknown_ones_are_errors() {
        round_trips(ApprovalStatus::VARIANTS);
        round_trips(PlanStatus::VARIANTS);
        round_trips(QuestionStatus::VARIANTS);
        assert_eq!(PlanStatus::Implementing.as_ref(), "implementing");
    }
}
