# Summary statistics for grouped data.
library(dplyr)
require("stats")

#' Mean of each group, dropping missing values.
#'
#' @param df a data frame
#' @param by the grouping column
group_means <- function(df, by = "group") {
  groups <- split(df$value, df[[by]])
  vapply(groups, function(v) mean(v, na.rm = TRUE), numeric(1))
}

trimmed <- function(x, trim = 0.1) mean(x, trim = trim)

`%||%` <- function(a, b) if (is.null(a)) b else a

summarise_all = function(df) {
  cols <- names(df)
  out <- lapply(cols, function(col) {
    # a brace in a string: "}" and in a comment }
    summary(df[[col]])
  })
  setNames(out, cols)
}
