WITH "wml_param_classes" AS (
  SELECT
    CAST("v"."wml_part" AS INT) AS "wml_part",
    CAST("v"."class_index" AS INT) AS "class_index",
    CAST("v"."class_label" AS VARCHAR) AS "class_label",
    CAST("v"."n" AS BIGINT) AS "n",
    CAST("v"."log_prior" AS DOUBLE) AS "log_prior"
  FROM (VALUES
    (0, 0, 'p', 3, CAST(-0.6931471805599452 AS DOUBLE)),
    (0, 1, 'q', 3, CAST(-0.6931471805599452 AS DOUBLE))) AS v(wml_part, class_index, class_label, n, log_prior)
), "wml_param_categorical" AS (
  SELECT
    CAST("v"."wml_part" AS INT) AS "wml_part",
    CAST("v"."attribute" AS VARCHAR) AS "attribute",
    CAST("v"."value" AS VARCHAR) AS "value",
    CAST("v"."class_index" AS INT) AS "class_index",
    CAST("v"."n" AS BIGINT) AS "n",
    CAST("v"."log_prob" AS DOUBLE) AS "log_prob"
  FROM (VALUES
    (0, 'c', 'a', 0, 2, CAST(-0.47000362924573547 AS DOUBLE)),
    (0, 'c', 'a', 1, 1, CAST(-0.6931471805599454 AS DOUBLE)),
    (0, 'c', 'b', 0, 1, CAST(-0.9808292530117262 AS DOUBLE)),
    (0, 'c', 'b', 1, 1, CAST(-0.6931471805599454 AS DOUBLE)),
    (0, 'd', 'x', 0, 2, CAST(-0.47000362924573547 AS DOUBLE)),
    (0, 'd', 'x', 1, 1, CAST(-0.6931471805599454 AS DOUBLE)),
    (0, 'd', 'y', 0, 1, CAST(-0.9808292530117262 AS DOUBLE)),
    (0, 'd', 'y', 1, 1, CAST(-0.6931471805599454 AS DOUBLE)),
    (0, 'k', '0', 0, 1, CAST(-0.8472978603872037 AS DOUBLE)),
    (0, 'k', '0', 1, 1, CAST(-1.0986122886681098 AS DOUBLE)),
    (0, 'k', '1', 0, 1, CAST(-0.8472978603872037 AS DOUBLE)),
    (0, 'k', '1', 1, 1, CAST(-1.0986122886681098 AS DOUBLE)),
    (0, 'k', '2', 0, 0, CAST(-1.9459101490553135 AS DOUBLE)),
    (0, 'k', '2', 1, 1, CAST(-1.0986122886681098 AS DOUBLE)),
    (0, 'x', '0', 0, 1, CAST(-1.2992829841302609 AS DOUBLE)),
    (0, 'x', '0', 1, 0, CAST(-2.1972245773362196 AS DOUBLE)),
    (0, 'x', '1', 0, 1, CAST(-1.2992829841302609 AS DOUBLE)),
    (0, 'x', '1', 1, 0, CAST(-2.1972245773362196 AS DOUBLE)),
    (0, 'x', '2', 0, 0, CAST(-2.3978952727983707 AS DOUBLE)),
    (0, 'x', '2', 1, 1, CAST(-1.0986122886681098 AS DOUBLE)),
    (0, 'x', '3', 0, 0, CAST(-2.3978952727983707 AS DOUBLE)),
    (0, 'x', '3', 1, 1, CAST(-1.0986122886681098 AS DOUBLE)),
    (0, 'x', '4', 0, 1, CAST(-1.2992829841302609 AS DOUBLE)),
    (0, 'x', '4', 1, 0, CAST(-2.1972245773362196 AS DOUBLE))) AS v(wml_part, attribute, value, class_index, n, log_prob)
), "wml_param_unseen" AS (
  SELECT
    CAST("v"."wml_part" AS INT) AS "wml_part",
    CAST("v"."attribute" AS VARCHAR) AS "attribute",
    CAST("v"."class_index" AS INT) AS "class_index",
    CAST("v"."n_class" AS BIGINT) AS "n_class",
    CAST("v"."n_values" AS BIGINT) AS "n_values",
    CAST("v"."log_prob" AS DOUBLE) AS "log_prob"
  FROM (VALUES
    (0, 'c', 0, 3, 2, CAST(-2.0794415416798357 AS DOUBLE)),
    (0, 'c', 1, 2, 2, CAST(-1.791759469228055 AS DOUBLE)),
    (0, 'd', 0, 3, 2, CAST(-2.0794415416798357 AS DOUBLE)),
    (0, 'd', 1, 2, 2, CAST(-1.791759469228055 AS DOUBLE)),
    (0, 'k', 0, 2, 3, CAST(-1.9459101490553135 AS DOUBLE)),
    (0, 'k', 1, 3, 3, CAST(-2.1972245773362196 AS DOUBLE)),
    (0, 'x', 0, 3, 5, CAST(-2.3978952727983707 AS DOUBLE)),
    (0, 'x', 1, 2, 5, CAST(-2.1972245773362196 AS DOUBLE))) AS v(wml_part, attribute, class_index, n_class, n_values, log_prob)
), "wml_param_cpt" AS (
  SELECT
    CAST("v"."wml_part" AS INT) AS "wml_part",
    CAST("v"."attribute" AS VARCHAR) AS "attribute",
    CAST("v"."parent" AS VARCHAR) AS "parent",
    CAST("v"."value" AS VARCHAR) AS "value",
    CAST("v"."parent_value" AS VARCHAR) AS "parent_value",
    CAST("v"."class_index" AS INT) AS "class_index",
    CAST("v"."n" AS BIGINT) AS "n",
    CAST("v"."n_parent" AS BIGINT) AS "n_parent",
    CAST("v"."n_values" AS BIGINT) AS "n_values",
    CAST("v"."log_prob" AS DOUBLE) AS "log_prob"
  FROM (VALUES
    (0, 'd', 'x', 'x', '0', 0, 1, 1, 2, CAST(-0.2876820724517809 AS DOUBLE)),
    (0, 'd', 'x', 'x', '0', 1, 0, 0, 2, CAST(-0.6931471805599453 AS DOUBLE)),
    (0, 'd', 'x', 'x', '1', 0, 1, 1, 2, CAST(-0.2876820724517809 AS DOUBLE)),
    (0, 'd', 'x', 'x', '1', 1, 0, 0, 2, CAST(-0.6931471805599453 AS DOUBLE)),
    (0, 'd', 'x', 'x', '2', 0, 0, 0, 2, CAST(-0.6931471805599453 AS DOUBLE)),
    (0, 'd', 'x', 'x', '2', 1, 1, 1, 2, CAST(-0.2876820724517809 AS DOUBLE)),
    (0, 'd', 'x', 'y', '4', 0, 1, 1, 2, CAST(-0.2876820724517809 AS DOUBLE)),
    (0, 'd', 'x', 'y', '4', 1, 0, 0, 2, CAST(-0.6931471805599453 AS DOUBLE)),
    (0, 'k', 'c', '0', 'a', 0, 1, 1, 3, CAST(-0.5108256237659907 AS DOUBLE)),
    (0, 'k', 'c', '0', 'a', 1, 0, 1, 3, CAST(-1.6094379124341005 AS DOUBLE)),
    (0, 'k', 'c', '1', 'b', 0, 1, 1, 3, CAST(-0.5108256237659907 AS DOUBLE)),
    (0, 'k', 'c', '1', 'b', 1, 1, 1, 3, CAST(-0.5108256237659907 AS DOUBLE)),
    (0, 'k', 'c', '2', 'a', 0, 0, 1, 3, CAST(-1.6094379124341005 AS DOUBLE)),
    (0, 'k', 'c', '2', 'a', 1, 1, 1, 3, CAST(-0.5108256237659907 AS DOUBLE)),
    (0, 'x', 'k', '0', '1', 0, 1, 1, 5, CAST(-0.8472978603872037 AS DOUBLE)),
    (0, 'x', 'k', '0', '1', 1, 0, 1, 5, CAST(-1.9459101490553135 AS DOUBLE)),
    (0, 'x', 'k', '1', '0', 0, 1, 1, 5, CAST(-0.8472978603872037 AS DOUBLE)),
    (0, 'x', 'k', '1', '0', 1, 0, 1, 5, CAST(-1.9459101490553135 AS DOUBLE)),
    (0, 'x', 'k', '2', '0', 0, 0, 1, 5, CAST(-1.9459101490553135 AS DOUBLE)),
    (0, 'x', 'k', '2', '0', 1, 1, 1, 5, CAST(-0.8472978603872037 AS DOUBLE)),
    (0, 'x', 'k', '3', '1', 0, 0, 1, 5, CAST(-1.9459101490553135 AS DOUBLE)),
    (0, 'x', 'k', '3', '1', 1, 1, 1, 5, CAST(-0.8472978603872037 AS DOUBLE))) AS v(wml_part, attribute, parent, value, parent_value, class_index, n, n_parent, n_values, log_prob)
), "wml_param_cpt_parent" AS (
  SELECT
    CAST("v"."wml_part" AS INT) AS "wml_part",
    CAST("v"."attribute" AS VARCHAR) AS "attribute",
    CAST("v"."parent" AS VARCHAR) AS "parent",
    CAST("v"."parent_value" AS VARCHAR) AS "parent_value",
    CAST("v"."class_index" AS INT) AS "class_index",
    CAST("v"."n_parent" AS BIGINT) AS "n_parent",
    CAST("v"."n_values" AS BIGINT) AS "n_values",
    CAST("v"."log_prob" AS DOUBLE) AS "log_prob"
  FROM (VALUES
    (0, 'd', 'x', '0', 0, 1, 2, CAST(-1.3862943611198906 AS DOUBLE)),
    (0, 'd', 'x', '0', 1, 0, 2, CAST(-0.6931471805599453 AS DOUBLE)),
    (0, 'd', 'x', '1', 0, 1, 2, CAST(-1.3862943611198906 AS DOUBLE)),
    (0, 'd', 'x', '1', 1, 0, 2, CAST(-0.6931471805599453 AS DOUBLE)),
    (0, 'd', 'x', '2', 0, 0, 2, CAST(-0.6931471805599453 AS DOUBLE)),
    (0, 'd', 'x', '2', 1, 1, 2, CAST(-1.3862943611198906 AS DOUBLE)),
    (0, 'd', 'x', '4', 0, 1, 2, CAST(-1.3862943611198906 AS DOUBLE)),
    (0, 'd', 'x', '4', 1, 0, 2, CAST(-0.6931471805599453 AS DOUBLE)),
    (0, 'k', 'c', 'a', 0, 1, 3, CAST(-1.6094379124341005 AS DOUBLE)),
    (0, 'k', 'c', 'a', 1, 1, 3, CAST(-1.6094379124341005 AS DOUBLE)),
    (0, 'k', 'c', 'b', 0, 1, 3, CAST(-1.6094379124341005 AS DOUBLE)),
    (0, 'k', 'c', 'b', 1, 1, 3, CAST(-1.6094379124341005 AS DOUBLE)),
    (0, 'x', 'k', '0', 0, 1, 5, CAST(-1.9459101490553135 AS DOUBLE)),
    (0, 'x', 'k', '0', 1, 1, 5, CAST(-1.9459101490553135 AS DOUBLE)),
    (0, 'x', 'k', '1', 0, 1, 5, CAST(-1.9459101490553135 AS DOUBLE)),
    (0, 'x', 'k', '1', 1, 1, 5, CAST(-1.9459101490553135 AS DOUBLE))) AS v(wml_part, attribute, parent, parent_value, class_index, n_parent, n_values, log_prob)
), wml_input AS (
  SELECT
    *
  FROM "t"
), wml_joint AS (
  SELECT
    "s"."id" AS "wml_k_0",
    (
      (
        "wml_prior"."lp_0" + CASE
          WHEN "s"."c" IS NULL
          THEN CAST(0 AS DOUBLE)
          WHEN "wml_a0"."value" IS NULL
          THEN "wml_a0_unseen"."lp_0"
          ELSE "wml_a0"."lp_0"
        END
      ) + (
        CASE
          WHEN CASE
            WHEN "s"."x" IS NULL
            THEN NULL
            WHEN "s"."x" <= CAST(0.5 AS DOUBLE)
            THEN 0
            WHEN "s"."x" <= CAST(1.5 AS DOUBLE)
            THEN 1
            WHEN "s"."x" <= CAST(2.0 AS DOUBLE)
            THEN 2
            WHEN "s"."x" <= CAST(2.5 AS DOUBLE)
            THEN 3
            ELSE 4
          END IS NULL
          THEN CAST(0 AS DOUBLE)
          WHEN NOT "wml_t1"."value" IS NULL
          THEN "wml_t1"."lp_0"
          WHEN NOT "wml_a1"."value" IS NULL AND NOT "wml_q1"."parent_value" IS NULL
          THEN "wml_q1"."lp_0"
          ELSE CASE
            WHEN CASE
              WHEN "s"."x" IS NULL
              THEN NULL
              WHEN "s"."x" <= CAST(0.5 AS DOUBLE)
              THEN 0
              WHEN "s"."x" <= CAST(1.5 AS DOUBLE)
              THEN 1
              WHEN "s"."x" <= CAST(2.0 AS DOUBLE)
              THEN 2
              WHEN "s"."x" <= CAST(2.5 AS DOUBLE)
              THEN 3
              ELSE 4
            END IS NULL
            THEN CAST(0 AS DOUBLE)
            WHEN "wml_a1"."value" IS NULL
            THEN "wml_a1_unseen"."lp_0"
            ELSE "wml_a1"."lp_0"
          END
        END + CASE
          WHEN "s"."d" IS NULL
          THEN CAST(0 AS DOUBLE)
          WHEN NOT "wml_t2"."value" IS NULL
          THEN "wml_t2"."lp_0"
          WHEN NOT "wml_a2"."value" IS NULL AND NOT "wml_q2"."parent_value" IS NULL
          THEN "wml_q2"."lp_0"
          ELSE CASE
            WHEN "s"."d" IS NULL
            THEN CAST(0 AS DOUBLE)
            WHEN "wml_a2"."value" IS NULL
            THEN "wml_a2_unseen"."lp_0"
            ELSE "wml_a2"."lp_0"
          END
        END
      )
    ) + CASE
      WHEN "s"."k" IS NULL
      THEN CAST(0 AS DOUBLE)
      WHEN NOT "wml_t3"."value" IS NULL
      THEN "wml_t3"."lp_0"
      WHEN NOT "wml_a3"."value" IS NULL AND NOT "wml_q3"."parent_value" IS NULL
      THEN "wml_q3"."lp_0"
      ELSE CASE
        WHEN "s"."k" IS NULL
        THEN CAST(0 AS DOUBLE)
        WHEN "wml_a3"."value" IS NULL
        THEN "wml_a3_unseen"."lp_0"
        ELSE "wml_a3"."lp_0"
      END
    END AS "wml_j_0",
    (
      (
        "wml_prior"."lp_1" + CASE
          WHEN "s"."c" IS NULL
          THEN CAST(0 AS DOUBLE)
          WHEN "wml_a0"."value" IS NULL
          THEN "wml_a0_unseen"."lp_1"
          ELSE "wml_a0"."lp_1"
        END
      ) + (
        CASE
          WHEN CASE
            WHEN "s"."x" IS NULL
            THEN NULL
            WHEN "s"."x" <= CAST(0.5 AS DOUBLE)
            THEN 0
            WHEN "s"."x" <= CAST(1.5 AS DOUBLE)
            THEN 1
            WHEN "s"."x" <= CAST(2.0 AS DOUBLE)
            THEN 2
            WHEN "s"."x" <= CAST(2.5 AS DOUBLE)
            THEN 3
            ELSE 4
          END IS NULL
          THEN CAST(0 AS DOUBLE)
          WHEN NOT "wml_t1"."value" IS NULL
          THEN "wml_t1"."lp_1"
          WHEN NOT "wml_a1"."value" IS NULL AND NOT "wml_q1"."parent_value" IS NULL
          THEN "wml_q1"."lp_1"
          ELSE CASE
            WHEN CASE
              WHEN "s"."x" IS NULL
              THEN NULL
              WHEN "s"."x" <= CAST(0.5 AS DOUBLE)
              THEN 0
              WHEN "s"."x" <= CAST(1.5 AS DOUBLE)
              THEN 1
              WHEN "s"."x" <= CAST(2.0 AS DOUBLE)
              THEN 2
              WHEN "s"."x" <= CAST(2.5 AS DOUBLE)
              THEN 3
              ELSE 4
            END IS NULL
            THEN CAST(0 AS DOUBLE)
            WHEN "wml_a1"."value" IS NULL
            THEN "wml_a1_unseen"."lp_1"
            ELSE "wml_a1"."lp_1"
          END
        END + CASE
          WHEN "s"."d" IS NULL
          THEN CAST(0 AS DOUBLE)
          WHEN NOT "wml_t2"."value" IS NULL
          THEN "wml_t2"."lp_1"
          WHEN NOT "wml_a2"."value" IS NULL AND NOT "wml_q2"."parent_value" IS NULL
          THEN "wml_q2"."lp_1"
          ELSE CASE
            WHEN "s"."d" IS NULL
            THEN CAST(0 AS DOUBLE)
            WHEN "wml_a2"."value" IS NULL
            THEN "wml_a2_unseen"."lp_1"
            ELSE "wml_a2"."lp_1"
          END
        END
      )
    ) + CASE
      WHEN "s"."k" IS NULL
      THEN CAST(0 AS DOUBLE)
      WHEN NOT "wml_t3"."value" IS NULL
      THEN "wml_t3"."lp_1"
      WHEN NOT "wml_a3"."value" IS NULL AND NOT "wml_q3"."parent_value" IS NULL
      THEN "wml_q3"."lp_1"
      ELSE CASE
        WHEN "s"."k" IS NULL
        THEN CAST(0 AS DOUBLE)
        WHEN "wml_a3"."value" IS NULL
        THEN "wml_a3_unseen"."lp_1"
        ELSE "wml_a3"."lp_1"
      END
    END AS "wml_j_1"
  FROM wml_input AS s
  LEFT JOIN (
    SELECT
      p.wml_part AS wml_part,
      MAX(CASE WHEN p.class_index = 0 THEN "p"."log_prior" END) AS "lp_0",
      MAX(CASE WHEN p.class_index = 1 THEN "p"."log_prior" END) AS "lp_1"
    FROM "wml_param_classes" AS p
    WHERE
      TRUE
    GROUP BY
      p.wml_part
  ) AS wml_prior
    ON "wml_prior"."wml_part" = 0
  LEFT JOIN (
    SELECT
      p.wml_part AS wml_part,
      "p"."value" AS "value",
      MAX(CASE WHEN p.class_index = 0 THEN "p"."log_prob" END) AS "lp_0",
      MAX(CASE WHEN p.class_index = 1 THEN "p"."log_prob" END) AS "lp_1"
    FROM "wml_param_categorical" AS p
    WHERE
      p.attribute = 'c'
    GROUP BY
      p.wml_part,
      "p"."value"
  ) AS wml_a0
    ON "wml_a0"."value" = CAST("s"."c" AS VARCHAR) AND "wml_a0"."wml_part" = 0
  LEFT JOIN (
    SELECT
      p.wml_part AS wml_part,
      MAX(CASE WHEN p.class_index = 0 THEN "p"."log_prob" END) AS "lp_0",
      MAX(CASE WHEN p.class_index = 1 THEN "p"."log_prob" END) AS "lp_1"
    FROM "wml_param_unseen" AS p
    WHERE
      "p"."attribute" = 'c'
    GROUP BY
      p.wml_part
  ) AS wml_a0_unseen
    ON "wml_a0_unseen"."wml_part" = 0
  LEFT JOIN (
    SELECT
      p.wml_part AS wml_part,
      "p"."value" AS "value",
      MAX(CASE WHEN p.class_index = 0 THEN "p"."log_prob" END) AS "lp_0",
      MAX(CASE WHEN p.class_index = 1 THEN "p"."log_prob" END) AS "lp_1"
    FROM "wml_param_categorical" AS p
    WHERE
      p.attribute = 'x'
    GROUP BY
      p.wml_part,
      "p"."value"
  ) AS wml_a1
    ON "wml_a1"."value" = CAST(CASE
      WHEN "s"."x" IS NULL
      THEN NULL
      WHEN "s"."x" <= CAST(0.5 AS DOUBLE)
      THEN 0
      WHEN "s"."x" <= CAST(1.5 AS DOUBLE)
      THEN 1
      WHEN "s"."x" <= CAST(2.0 AS DOUBLE)
      THEN 2
      WHEN "s"."x" <= CAST(2.5 AS DOUBLE)
      THEN 3
      ELSE 4
    END AS VARCHAR)
    AND "wml_a1"."wml_part" = 0
  LEFT JOIN (
    SELECT
      p.wml_part AS wml_part,
      MAX(CASE WHEN p.class_index = 0 THEN "p"."log_prob" END) AS "lp_0",
      MAX(CASE WHEN p.class_index = 1 THEN "p"."log_prob" END) AS "lp_1"
    FROM "wml_param_unseen" AS p
    WHERE
      "p"."attribute" = 'x'
    GROUP BY
      p.wml_part
  ) AS wml_a1_unseen
    ON "wml_a1_unseen"."wml_part" = 0
  LEFT JOIN (
    SELECT
      p.wml_part AS wml_part,
      "p"."value" AS "value",
      "p"."parent_value" AS "parent_value",
      MAX(CASE WHEN p.class_index = 0 THEN "p"."log_prob" END) AS "lp_0",
      MAX(CASE WHEN p.class_index = 1 THEN "p"."log_prob" END) AS "lp_1"
    FROM "wml_param_cpt" AS p
    WHERE
      p.attribute = 'x'
    GROUP BY
      p.wml_part,
      "p"."value",
      "p"."parent_value"
  ) AS wml_t1
    ON (
      "wml_t1"."value" = CAST(CASE
        WHEN "s"."x" IS NULL
        THEN NULL
        WHEN "s"."x" <= CAST(0.5 AS DOUBLE)
        THEN 0
        WHEN "s"."x" <= CAST(1.5 AS DOUBLE)
        THEN 1
        WHEN "s"."x" <= CAST(2.0 AS DOUBLE)
        THEN 2
        WHEN "s"."x" <= CAST(2.5 AS DOUBLE)
        THEN 3
        ELSE 4
      END AS VARCHAR)
      AND "wml_t1"."parent_value" = CAST("s"."k" AS VARCHAR)
    )
    AND "wml_t1"."wml_part" = 0
  LEFT JOIN (
    SELECT
      p.wml_part AS wml_part,
      "p"."parent_value" AS "parent_value",
      MAX(CASE WHEN p.class_index = 0 THEN "p"."log_prob" END) AS "lp_0",
      MAX(CASE WHEN p.class_index = 1 THEN "p"."log_prob" END) AS "lp_1"
    FROM "wml_param_cpt_parent" AS p
    WHERE
      p.attribute = 'x'
    GROUP BY
      p.wml_part,
      "p"."parent_value"
  ) AS wml_q1
    ON "wml_q1"."parent_value" = CAST("s"."k" AS VARCHAR) AND "wml_q1"."wml_part" = 0
  LEFT JOIN (
    SELECT
      p.wml_part AS wml_part,
      "p"."value" AS "value",
      MAX(CASE WHEN p.class_index = 0 THEN "p"."log_prob" END) AS "lp_0",
      MAX(CASE WHEN p.class_index = 1 THEN "p"."log_prob" END) AS "lp_1"
    FROM "wml_param_categorical" AS p
    WHERE
      p.attribute = 'd'
    GROUP BY
      p.wml_part,
      "p"."value"
  ) AS wml_a2
    ON "wml_a2"."value" = CAST("s"."d" AS VARCHAR) AND "wml_a2"."wml_part" = 0
  LEFT JOIN (
    SELECT
      p.wml_part AS wml_part,
      MAX(CASE WHEN p.class_index = 0 THEN "p"."log_prob" END) AS "lp_0",
      MAX(CASE WHEN p.class_index = 1 THEN "p"."log_prob" END) AS "lp_1"
    FROM "wml_param_unseen" AS p
    WHERE
      "p"."attribute" = 'd'
    GROUP BY
      p.wml_part
  ) AS wml_a2_unseen
    ON "wml_a2_unseen"."wml_part" = 0
  LEFT JOIN (
    SELECT
      p.wml_part AS wml_part,
      "p"."value" AS "value",
      "p"."parent_value" AS "parent_value",
      MAX(CASE WHEN p.class_index = 0 THEN "p"."log_prob" END) AS "lp_0",
      MAX(CASE WHEN p.class_index = 1 THEN "p"."log_prob" END) AS "lp_1"
    FROM "wml_param_cpt" AS p
    WHERE
      p.attribute = 'd'
    GROUP BY
      p.wml_part,
      "p"."value",
      "p"."parent_value"
  ) AS wml_t2
    ON (
      "wml_t2"."value" = CAST("s"."d" AS VARCHAR)
      AND "wml_t2"."parent_value" = CAST(CASE
        WHEN "s"."x" IS NULL
        THEN NULL
        WHEN "s"."x" <= CAST(0.5 AS DOUBLE)
        THEN 0
        WHEN "s"."x" <= CAST(1.5 AS DOUBLE)
        THEN 1
        WHEN "s"."x" <= CAST(2.0 AS DOUBLE)
        THEN 2
        WHEN "s"."x" <= CAST(2.5 AS DOUBLE)
        THEN 3
        ELSE 4
      END AS VARCHAR)
    )
    AND "wml_t2"."wml_part" = 0
  LEFT JOIN (
    SELECT
      p.wml_part AS wml_part,
      "p"."parent_value" AS "parent_value",
      MAX(CASE WHEN p.class_index = 0 THEN "p"."log_prob" END) AS "lp_0",
      MAX(CASE WHEN p.class_index = 1 THEN "p"."log_prob" END) AS "lp_1"
    FROM "wml_param_cpt_parent" AS p
    WHERE
      p.attribute = 'd'
    GROUP BY
      p.wml_part,
      "p"."parent_value"
  ) AS wml_q2
    ON "wml_q2"."parent_value" = CAST(CASE
      WHEN "s"."x" IS NULL
      THEN NULL
      WHEN "s"."x" <= CAST(0.5 AS DOUBLE)
      THEN 0
      WHEN "s"."x" <= CAST(1.5 AS DOUBLE)
      THEN 1
      WHEN "s"."x" <= CAST(2.0 AS DOUBLE)
      THEN 2
      WHEN "s"."x" <= CAST(2.5 AS DOUBLE)
      THEN 3
      ELSE 4
    END AS VARCHAR)
    AND "wml_q2"."wml_part" = 0
  LEFT JOIN (
    SELECT
      p.wml_part AS wml_part,
      "p"."value" AS "value",
      MAX(CASE WHEN p.class_index = 0 THEN "p"."log_prob" END) AS "lp_0",
      MAX(CASE WHEN p.class_index = 1 THEN "p"."log_prob" END) AS "lp_1"
    FROM "wml_param_categorical" AS p
    WHERE
      p.attribute = 'k'
    GROUP BY
      p.wml_part,
      "p"."value"
  ) AS wml_a3
    ON "wml_a3"."value" = CAST("s"."k" AS VARCHAR) AND "wml_a3"."wml_part" = 0
  LEFT JOIN (
    SELECT
      p.wml_part AS wml_part,
      MAX(CASE WHEN p.class_index = 0 THEN "p"."log_prob" END) AS "lp_0",
      MAX(CASE WHEN p.class_index = 1 THEN "p"."log_prob" END) AS "lp_1"
    FROM "wml_param_unseen" AS p
    WHERE
      "p"."attribute" = 'k'
    GROUP BY
      p.wml_part
  ) AS wml_a3_unseen
    ON "wml_a3_unseen"."wml_part" = 0
  LEFT JOIN (
    SELECT
      p.wml_part AS wml_part,
      "p"."value" AS "value",
      "p"."parent_value" AS "parent_value",
      MAX(CASE WHEN p.class_index = 0 THEN "p"."log_prob" END) AS "lp_0",
      MAX(CASE WHEN p.class_index = 1 THEN "p"."log_prob" END) AS "lp_1"
    FROM "wml_param_cpt" AS p
    WHERE
      p.attribute = 'k'
    GROUP BY
      p.wml_part,
      "p"."value",
      "p"."parent_value"
  ) AS wml_t3
    ON (
      "wml_t3"."value" = CAST("s"."k" AS VARCHAR)
      AND "wml_t3"."parent_value" = CAST("s"."c" AS VARCHAR)
    )
    AND "wml_t3"."wml_part" = 0
  LEFT JOIN (
    SELECT
      p.wml_part AS wml_part,
      "p"."parent_value" AS "parent_value",
      MAX(CASE WHEN p.class_index = 0 THEN "p"."log_prob" END) AS "lp_0",
      MAX(CASE WHEN p.class_index = 1 THEN "p"."log_prob" END) AS "lp_1"
    FROM "wml_param_cpt_parent" AS p
    WHERE
      p.attribute = 'k'
    GROUP BY
      p.wml_part,
      "p"."parent_value"
  ) AS wml_q3
    ON "wml_q3"."parent_value" = CAST("s"."c" AS VARCHAR) AND "wml_q3"."wml_part" = 0
), wml_maxed AS (
  SELECT
    *,
    GREATEST_IGNORE_NULLS("wml_j_0", "wml_j_1") AS "wml_max"
  FROM wml_joint
), wml_shifted AS (
  SELECT
    *,
    CASE
      WHEN "wml_j_0" IS NULL OR "wml_j_0" - "wml_max" < -708
      THEN CAST(0 AS DOUBLE)
      ELSE EXP("wml_j_0" - "wml_max")
    END AS "wml_s_0",
    CASE
      WHEN "wml_j_1" IS NULL OR "wml_j_1" - "wml_max" < -708
      THEN CAST(0 AS DOUBLE)
      ELSE EXP("wml_j_1" - "wml_max")
    END AS "wml_s_1"
  FROM wml_maxed
), wml_totalled AS (
  SELECT
    *,
    "wml_s_0" + "wml_s_1" AS "wml_total"
  FROM wml_shifted
), wml_posterior AS (
  SELECT
    *,
    "wml_s_0" / NULLIF("wml_total", 0) AS "wml_p_0",
    "wml_j_0" - "wml_max" - LN(NULLIF("wml_total", 0)) AS "wml_lp_0",
    "wml_s_1" / NULLIF("wml_total", 0) AS "wml_p_1",
    "wml_j_1" - "wml_max" - LN(NULLIF("wml_total", 0)) AS "wml_lp_1"
  FROM wml_totalled
)
SELECT
  "wml_k_0" AS "id",
  "wml_p_0" AS "p_p",
  "wml_p_1" AS "p_q",
  CASE WHEN "wml_j_0" = "wml_max" THEN 'p' WHEN "wml_j_1" = "wml_max" THEN 'q' END AS "prediction"
FROM wml_posterior
