WITH `wml_param_classes` AS (
  SELECT
    CAST(`v`.`wml_part` AS INT64) AS `wml_part`,
    CAST(`v`.`class_index` AS INT64) AS `class_index`,
    CAST(`v`.`class_label` AS STRING) AS `class_label`,
    CAST(`v`.`n` AS INT64) AS `n`,
    CAST(`v`.`log_prior` AS FLOAT64) AS `log_prior`
  FROM UNNEST([
    STRUCT(
      0 AS wml_part,
      0 AS class_index,
      'p' AS class_label,
      3 AS n,
      CAST(-0.6931471805599452 AS FLOAT64) AS log_prior
    ),
    STRUCT(
      0 AS wml_part,
      1 AS class_index,
      'q' AS class_label,
      3 AS n,
      CAST(-0.6931471805599452 AS FLOAT64) AS log_prior
    )
  ]) AS v
), `wml_param_categorical` AS (
  SELECT
    CAST(`v`.`wml_part` AS INT64) AS `wml_part`,
    CAST(`v`.`attribute` AS STRING) AS `attribute`,
    CAST(`v`.`value` AS STRING) AS `value`,
    CAST(`v`.`class_index` AS INT64) AS `class_index`,
    CAST(`v`.`n` AS INT64) AS `n`,
    CAST(`v`.`log_prob` AS FLOAT64) AS `log_prob`
  FROM UNNEST([
    STRUCT(
      0 AS wml_part,
      'c' AS attribute,
      'a' AS value,
      0 AS class_index,
      2 AS n,
      CAST(-0.5108256237659905 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'c' AS attribute,
      'a' AS value,
      1 AS class_index,
      1 AS n,
      CAST(-0.6931471805599453 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'c' AS attribute,
      'b' AS value,
      0 AS class_index,
      1 AS n,
      CAST(-0.916290731874155 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'c' AS attribute,
      'b' AS value,
      1 AS class_index,
      1 AS n,
      CAST(-0.6931471805599453 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'd' AS attribute,
      'x' AS value,
      0 AS class_index,
      2 AS n,
      CAST(-0.5108256237659905 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'd' AS attribute,
      'x' AS value,
      1 AS class_index,
      1 AS n,
      CAST(-0.6931471805599453 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'd' AS attribute,
      'y' AS value,
      0 AS class_index,
      1 AS n,
      CAST(-0.916290731874155 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'd' AS attribute,
      'y' AS value,
      1 AS class_index,
      1 AS n,
      CAST(-0.6931471805599453 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'k' AS attribute,
      '0' AS value,
      0 AS class_index,
      1 AS n,
      CAST(-0.916290731874155 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'k' AS attribute,
      '0' AS value,
      1 AS class_index,
      1 AS n,
      CAST(-1.0986122886681096 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'k' AS attribute,
      '1' AS value,
      0 AS class_index,
      1 AS n,
      CAST(-0.916290731874155 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'k' AS attribute,
      '1' AS value,
      1 AS class_index,
      1 AS n,
      CAST(-1.0986122886681096 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'k' AS attribute,
      '2' AS value,
      0 AS class_index,
      0 AS n,
      CAST(-1.6094379124341003 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'k' AS attribute,
      '2' AS value,
      1 AS class_index,
      1 AS n,
      CAST(-1.0986122886681096 AS FLOAT64) AS log_prob
    )
  ]) AS v
), `wml_param_unseen` AS (
  SELECT
    CAST(`v`.`wml_part` AS INT64) AS `wml_part`,
    CAST(`v`.`attribute` AS STRING) AS `attribute`,
    CAST(`v`.`class_index` AS INT64) AS `class_index`,
    CAST(`v`.`n_class` AS INT64) AS `n_class`,
    CAST(`v`.`n_values` AS INT64) AS `n_values`,
    CAST(`v`.`log_prob` AS FLOAT64) AS `log_prob`
  FROM UNNEST([
    STRUCT(
      0 AS wml_part,
      'c' AS attribute,
      0 AS class_index,
      3 AS n_class,
      2 AS n_values,
      CAST(-1.6094379124341003 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'c' AS attribute,
      1 AS class_index,
      2 AS n_class,
      2 AS n_values,
      CAST(-1.3862943611198906 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'd' AS attribute,
      0 AS class_index,
      3 AS n_class,
      2 AS n_values,
      CAST(-1.6094379124341003 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'd' AS attribute,
      1 AS class_index,
      2 AS n_class,
      2 AS n_values,
      CAST(-1.3862943611198906 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'k' AS attribute,
      0 AS class_index,
      2 AS n_class,
      3 AS n_values,
      CAST(-1.6094379124341003 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'k' AS attribute,
      1 AS class_index,
      3 AS n_class,
      3 AS n_values,
      CAST(-1.791759469228055 AS FLOAT64) AS log_prob
    )
  ]) AS v
), `wml_param_gaussian` AS (
  SELECT
    CAST(`v`.`wml_part` AS INT64) AS `wml_part`,
    CAST(`v`.`attribute` AS STRING) AS `attribute`,
    CAST(`v`.`class_index` AS INT64) AS `class_index`,
    CAST(`v`.`n` AS INT64) AS `n`,
    CAST(`v`.`mean` AS FLOAT64) AS `mean`,
    CAST(`v`.`variance` AS FLOAT64) AS `variance`
  FROM UNNEST([
    STRUCT(
      0 AS wml_part,
      'x' AS attribute,
      0 AS class_index,
      3 AS n,
      CAST(1.6666666666666667 AS FLOAT64) AS mean,
      CAST(1.0555555562955554 AS FLOAT64) AS variance
    ),
    STRUCT(
      0 AS wml_part,
      'x' AS attribute,
      1 AS class_index,
      2 AS n,
      CAST(2.25 AS FLOAT64) AS mean,
      CAST(0.06250000074 AS FLOAT64) AS variance
    )
  ]) AS v
), `wml_param_lookup` AS (
  SELECT
    CAST(`v`.`code` AS INT64) AS `code`,
    CAST(`v`.`lp_0` AS FLOAT64) AS `lp_0`,
    CAST(`v`.`lp_1` AS FLOAT64) AS `lp_1`
  FROM UNNEST([
    STRUCT(
      0 AS code,
      CAST(-0.916290731874155 AS FLOAT64) AS lp_0,
      CAST(-1.0986122886681096 AS FLOAT64) AS lp_1
    ),
    STRUCT(
      1 AS code,
      CAST(-0.916290731874155 AS FLOAT64) AS lp_0,
      CAST(-1.0986122886681096 AS FLOAT64) AS lp_1
    ),
    STRUCT(
      2 AS code,
      CAST(-1.6094379124341003 AS FLOAT64) AS lp_0,
      CAST(-1.0986122886681096 AS FLOAT64) AS lp_1
    ),
    STRUCT(
      3 AS code,
      CAST(-1.6094379124341003 AS FLOAT64) AS lp_0,
      CAST(-1.791759469228055 AS FLOAT64) AS lp_1
    ),
    STRUCT(4 AS code, CAST(0.0 AS FLOAT64) AS lp_0, CAST(0.0 AS FLOAT64) AS lp_1)
  ]) AS v
), wml_input AS (
  SELECT
    *
  FROM `t`
), wml_joint AS (
  SELECT
    `s`.`id` AS `wml_k_0`,
    (
      (
        `wml_prior`.`lp_0` + CASE
          WHEN `s`.`c` IS NULL
          THEN CAST(0 AS FLOAT64)
          WHEN `wml_a0`.`value` IS NULL
          THEN `wml_a0_unseen`.`lp_0`
          ELSE `wml_a0`.`lp_0`
        END
      ) + (
        CASE
          WHEN CAST(`s`.`x` AS FLOAT64) IS NULL OR `wml_g1_mean`.`mean_0` IS NULL
          THEN CAST(0 AS FLOAT64)
          ELSE -0.5 * LN(2 * ACOS(-1) * `wml_g1_var`.`var_0`) - (
            CAST(`s`.`x` AS FLOAT64) - `wml_g1_mean`.`mean_0`
          ) * (
            CAST(`s`.`x` AS FLOAT64) - `wml_g1_mean`.`mean_0`
          ) / (
            2 * `wml_g1_var`.`var_0`
          )
        END + CASE
          WHEN `s`.`d` IS NULL
          THEN CAST(0 AS FLOAT64)
          WHEN `wml_a2`.`value` IS NULL
          THEN `wml_a2_unseen`.`lp_0`
          ELSE `wml_a2`.`lp_0`
        END
      )
    ) + `wml_a3`.`lp_0` AS `wml_j_0`,
    (
      (
        `wml_prior`.`lp_1` + CASE
          WHEN `s`.`c` IS NULL
          THEN CAST(0 AS FLOAT64)
          WHEN `wml_a0`.`value` IS NULL
          THEN `wml_a0_unseen`.`lp_1`
          ELSE `wml_a0`.`lp_1`
        END
      ) + (
        CASE
          WHEN CAST(`s`.`x` AS FLOAT64) IS NULL OR `wml_g1_mean`.`mean_1` IS NULL
          THEN CAST(0 AS FLOAT64)
          ELSE -0.5 * LN(2 * ACOS(-1) * `wml_g1_var`.`var_1`) - (
            CAST(`s`.`x` AS FLOAT64) - `wml_g1_mean`.`mean_1`
          ) * (
            CAST(`s`.`x` AS FLOAT64) - `wml_g1_mean`.`mean_1`
          ) / (
            2 * `wml_g1_var`.`var_1`
          )
        END + CASE
          WHEN `s`.`d` IS NULL
          THEN CAST(0 AS FLOAT64)
          WHEN `wml_a2`.`value` IS NULL
          THEN `wml_a2_unseen`.`lp_1`
          ELSE `wml_a2`.`lp_1`
        END
      )
    ) + `wml_a3`.`lp_1` AS `wml_j_1`
  FROM wml_input AS s
  LEFT JOIN (
    SELECT
      p.wml_part AS wml_part,
      MAX(CASE WHEN p.class_index = 0 THEN `p`.`log_prior` END) AS `lp_0`,
      MAX(CASE WHEN p.class_index = 1 THEN `p`.`log_prior` END) AS `lp_1`
    FROM `wml_param_classes` AS p
    WHERE
      TRUE
    GROUP BY
      p.wml_part
  ) AS wml_prior
    ON `wml_prior`.`wml_part` = 0
  LEFT JOIN (
    SELECT
      p.wml_part AS wml_part,
      `p`.`value` AS `value`,
      MAX(CASE WHEN p.class_index = 0 THEN `p`.`log_prob` END) AS `lp_0`,
      MAX(CASE WHEN p.class_index = 1 THEN `p`.`log_prob` END) AS `lp_1`
    FROM `wml_param_categorical` AS p
    WHERE
      p.attribute = 'c'
    GROUP BY
      p.wml_part,
      `p`.`value`
  ) AS wml_a0
    ON `wml_a0`.`value` = CAST(`s`.`c` AS STRING) AND `wml_a0`.`wml_part` = 0
  LEFT JOIN (
    SELECT
      p.wml_part AS wml_part,
      MAX(CASE WHEN p.class_index = 0 THEN `p`.`log_prob` END) AS `lp_0`,
      MAX(CASE WHEN p.class_index = 1 THEN `p`.`log_prob` END) AS `lp_1`
    FROM `wml_param_unseen` AS p
    WHERE
      `p`.`attribute` = 'c'
    GROUP BY
      p.wml_part
  ) AS wml_a0_unseen
    ON `wml_a0_unseen`.`wml_part` = 0
  LEFT JOIN (
    SELECT
      p.wml_part AS wml_part,
      MAX(CASE WHEN p.class_index = 0 THEN `p`.`mean` END) AS `mean_0`,
      MAX(CASE WHEN p.class_index = 1 THEN `p`.`mean` END) AS `mean_1`
    FROM `wml_param_gaussian` AS p
    WHERE
      `p`.`attribute` = 'x'
    GROUP BY
      p.wml_part
  ) AS wml_g1_mean
    ON `wml_g1_mean`.`wml_part` = 0
  LEFT JOIN (
    SELECT
      p.wml_part AS wml_part,
      MAX(CASE WHEN p.class_index = 0 THEN `p`.`variance` END) AS `var_0`,
      MAX(CASE WHEN p.class_index = 1 THEN `p`.`variance` END) AS `var_1`
    FROM `wml_param_gaussian` AS p
    WHERE
      `p`.`attribute` = 'x'
    GROUP BY
      p.wml_part
  ) AS wml_g1_var
    ON `wml_g1_var`.`wml_part` = 0
  LEFT JOIN (
    SELECT
      p.wml_part AS wml_part,
      `p`.`value` AS `value`,
      MAX(CASE WHEN p.class_index = 0 THEN `p`.`log_prob` END) AS `lp_0`,
      MAX(CASE WHEN p.class_index = 1 THEN `p`.`log_prob` END) AS `lp_1`
    FROM `wml_param_categorical` AS p
    WHERE
      p.attribute = 'd'
    GROUP BY
      p.wml_part,
      `p`.`value`
  ) AS wml_a2
    ON `wml_a2`.`value` = CAST(`s`.`d` AS STRING) AND `wml_a2`.`wml_part` = 0
  LEFT JOIN (
    SELECT
      p.wml_part AS wml_part,
      MAX(CASE WHEN p.class_index = 0 THEN `p`.`log_prob` END) AS `lp_0`,
      MAX(CASE WHEN p.class_index = 1 THEN `p`.`log_prob` END) AS `lp_1`
    FROM `wml_param_unseen` AS p
    WHERE
      `p`.`attribute` = 'd'
    GROUP BY
      p.wml_part
  ) AS wml_a2_unseen
    ON `wml_a2_unseen`.`wml_part` = 0
  INNER JOIN `wml_param_lookup` AS wml_a3
    ON `wml_a3`.`code` = CAST(0 + CASE
      WHEN `s`.`k` IS NULL
      THEN 4
      WHEN `s`.`k` < 0 OR `s`.`k` > 2
      THEN 3
      ELSE CAST(`s`.`k` AS INT64) - 0
    END AS INT64)
), wml_maxed AS (
  SELECT
    *,
    GREATEST(`wml_j_0`, `wml_j_1`) AS `wml_max`
  FROM wml_joint
), wml_shifted AS (
  SELECT
    *,
    CASE
      WHEN `wml_j_0` IS NULL OR `wml_j_0` - `wml_max` < -708
      THEN CAST(0 AS FLOAT64)
      ELSE EXP(`wml_j_0` - `wml_max`)
    END AS `wml_s_0`,
    CASE
      WHEN `wml_j_1` IS NULL OR `wml_j_1` - `wml_max` < -708
      THEN CAST(0 AS FLOAT64)
      ELSE EXP(`wml_j_1` - `wml_max`)
    END AS `wml_s_1`
  FROM wml_maxed
), wml_totalled AS (
  SELECT
    *,
    `wml_s_0` + `wml_s_1` AS `wml_total`
  FROM wml_shifted
), wml_posterior AS (
  SELECT
    *,
    `wml_s_0` / NULLIF(`wml_total`, 0) AS `wml_p_0`,
    `wml_j_0` - `wml_max` - LN(NULLIF(`wml_total`, 0)) AS `wml_lp_0`,
    `wml_s_1` / NULLIF(`wml_total`, 0) AS `wml_p_1`,
    `wml_j_1` - `wml_max` - LN(NULLIF(`wml_total`, 0)) AS `wml_lp_1`
  FROM wml_totalled
)
SELECT
  `wml_k_0` AS `id`,
  `wml_p_0` AS `p_p`,
  `wml_p_1` AS `p_q`,
  CASE WHEN `wml_j_0` = `wml_max` THEN 'p' WHEN `wml_j_1` = `wml_max` THEN 'q' END AS `prediction`
FROM wml_posterior
