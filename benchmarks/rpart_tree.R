# rpart with a loss matrix (and optional priors) for bench_decision_quality.py.
#
# Usage: Rscript rpart_tree.R <dir> <seed> <minbucket> [<xval>]   (xval: folds, default 10;
# 0 skips rpart's cross-validation, and its 1-SE choice then marks the largest tree)
#
# <dir> holds train.csv, valid.csv and test.csv (inputs plus the target column "y";
# text columns are read as factors), levels.csv (one column "level": the target levels
# in the order of the loss matrix), loss.csv (square loss matrix without header, rows =
# actual level, columns = predicted level, zero diagonal) and optionally prior.csv (one
# column "prior").
#
# Grows a tree with cp = 0, then writes for the subtrees of rpart's cp sequence the
# predicted level (1-based index into levels.csv; rpart predicts the level of least
# expected loss) on the validation and test cases, plus the cp table with a column
# "one_se" marking the subtree that rpart's 1-SE rule on xerror selects.
# Outputs: valid_pred.csv, test_pred.csv (one column per scored subtree), valid_prob.csv,
# test_prob.csv (the same subtrees' leaf posterior of the last level), cptable.csv (its
# rows: the scored subtrees, at most 60 spread evenly over the sequence).
# Beware: with an asymmetric loss matrix rpart's xerror is not the cross-validated loss
# (rpart issues #65 and #74: the cross-validation prediction reads the loss matrix
# transposed), so the 1-SE choice is reported but not trusted.

suppressPackageStartupMessages(library(rpart))

args <- commandArgs(trailingOnly = TRUE)
if (!length(args) %in% c(3, 4)) {
  stop("usage: Rscript rpart_tree.R <dir> <seed> <minbucket> [<xval>]")
}
dir <- args[1]
seed <- as.integer(args[2])
minbucket <- as.integer(args[3])
xval <- if (length(args) == 4) as.integer(args[4]) else 10L

levels_y <- as.character(read.csv(file.path(dir, "levels.csv"))$level)
read_part <- function(name) {
  df <- read.csv(file.path(dir, name), stringsAsFactors = TRUE, check.names = FALSE)
  df$y <- factor(as.character(df$y), levels = levels_y)
  df
}
train <- read_part("train.csv")
valid <- read_part("valid.csv")
test <- read_part("test.csv")
# factor inputs must know the same levels in every part
for (col in names(train)) {
  if (col != "y" && is.factor(train[[col]])) {
    lv <- union(levels(train[[col]]), union(levels(valid[[col]]), levels(test[[col]])))
    train[[col]] <- factor(as.character(train[[col]]), levels = lv)
    valid[[col]] <- factor(as.character(valid[[col]]), levels = lv)
    test[[col]] <- factor(as.character(test[[col]]), levels = lv)
  }
}

loss <- as.matrix(read.csv(file.path(dir, "loss.csv"), header = FALSE))
dimnames(loss) <- NULL
parms <- list(loss = loss)
prior_file <- file.path(dir, "prior.csv")
if (file.exists(prior_file)) parms$prior <- read.csv(prior_file)$prior

set.seed(seed)
fit <- rpart(y ~ ., data = train, method = "class", parms = parms,
             control = rpart.control(cp = 0, minbucket = minbucket,
                                     minsplit = 2 * minbucket, xval = xval,
                                     maxcompete = 0, maxsurrogate = 0,
                                     usesurrogate = 0, maxdepth = 30))
cpt <- fit$cptable
n_sub <- nrow(cpt)
# rpart's 1-SE rule: the smallest tree whose xerror is within one SE of the minimum
if (xval > 0) {
  best <- which.min(cpt[, "xerror"])
  limit <- cpt[best, "xerror"] + cpt[best, "xstd"]
  one_se <- min(which(cpt[, "xerror"] <= limit))
} else {
  cpt <- cbind(cpt, xerror = NA, xstd = NA)  # no cross-validation: no 1-SE choice
  one_se <- n_sub
}

# score at most max_scored subtrees (evenly spread over the sequence, always including
# the 1-SE choice and the largest tree) to keep the run short
max_scored <- 60
scored <- if (n_sub <= max_scored) seq_len(n_sub) else
  sort(unique(c(round(seq(1, n_sub, length.out = max_scored)), one_se)))
valid_pred <- matrix(0L, nrow(valid), length(scored))
test_pred <- matrix(0L, nrow(test), length(scored))
# leaf posterior of the last level (binary targets: what a per-case decision needs)
valid_prob <- matrix(0, nrow(valid), length(scored))
test_prob <- matrix(0, nrow(test), length(scored))
for (j in seq_along(scored)) {
  k <- scored[j]
  # prune halfway (geometrically) between breakpoints so that subtree k is obtained
  cp_k <- if (k == 1) cpt[1, "CP"] * 1.01 else sqrt(cpt[k, "CP"] * cpt[k - 1, "CP"])
  sub <- if (cp_k > 0) prune(fit, cp = cp_k) else fit
  valid_pred[, j] <- as.integer(predict(sub, valid, type = "class"))
  test_pred[, j] <- as.integer(predict(sub, test, type = "class"))
  valid_prob[, j] <- predict(sub, valid, type = "prob")[, length(levels_y)]
  test_prob[, j] <- predict(sub, test, type = "prob")[, length(levels_y)]
}
colnames(valid_pred) <- paste0("s", scored - 1)
colnames(test_pred) <- colnames(valid_pred)
write.csv(valid_pred, file.path(dir, "valid_pred.csv"), row.names = FALSE)
write.csv(test_pred, file.path(dir, "test_pred.csv"), row.names = FALSE)
colnames(valid_prob) <- colnames(valid_pred)
colnames(test_prob) <- colnames(valid_pred)
write.csv(valid_prob, file.path(dir, "valid_prob.csv"), row.names = FALSE)
write.csv(test_prob, file.path(dir, "test_prob.csv"), row.names = FALSE)
out <- data.frame(cp = cpt[scored, "CP"], nsplit = cpt[scored, "nsplit"],
                  xerror = cpt[scored, "xerror"], xstd = cpt[scored, "xstd"],
                  one_se = scored == one_se)
write.csv(out, file.path(dir, "cptable.csv"), row.names = FALSE)
